package embedded

// PassLock is passLock, for the tests of package embedded_test.
var PassLock = passLock
