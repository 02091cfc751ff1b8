// Package release holds the test of the release configuration
// (.goreleaser.yaml at the repository root): every binary it names builds
// for every target it lists, and the version it stamps is the one
// --version prints.
package release
