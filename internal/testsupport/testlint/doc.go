// Package testlint checks the module's tests for errors they throw away: a
// test that assigns an error to the blank identifier (`v, _ := f()`,
// `_ = f()`) goes on as if f had worked and can pass when f fails. Its test
// runs the check over every package; a discarded error that is meant (the
// outcome is asserted another way) says so in a comment on the same line
// that starts with "error ignored:".
package testlint
