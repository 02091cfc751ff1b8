// Package layout holds the test of docs/project-layout.md: every package of
// the module is listed there with its one job, and imports only the module
// packages its row allows.
package layout
