// Package wire is the platform API's JSON as the server reads and writes it:
// strict decoding of request bodies and objects (no unknown field, no
// duplicate key, no null, errors that never quote a value) and the fast
// encoder of objects and lists, byte for byte what encoding/json writes.
//
// It imports the API types (pkg/resources) and the store's object type;
// nothing of HTTP.
package wire
