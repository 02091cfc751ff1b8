package testlint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// No test of the module throws an error away unannounced.
func TestNoDiscardedErrorsInTests(t *testing.T) {
	findings, err := Check(filepath.Join("..", "..", ".."), "./...")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		t.Error(f)
	}
}

// The check finds each form of discard, and only discarded errors.
func TestCheckFindsDiscards(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n\ngo 1.22\n")
	write("m.go", `package m

import "errors"

func Two() (int, error) { return 0, errors.New("x") }
func One() error        { return nil }
func Pair() (int, bool) { return 0, false }
`)
	write("m_test.go", `package m

import "testing"

func TestX(t *testing.T) {
	v, _ := Two()  // line 6: found
	_ = One()      // line 7: found
	_, ok := Pair() // not an error
	_, _ = v, ok
	w, _ := Two() // error ignored: the test asserts w's zero value
	_ = w
	var err error
	_ = err // line 13: found
}
`)
	findings, err := Check(dir, "./...")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, f := range findings {
		lines = append(lines, strings.TrimPrefix(f.String(), filepath.Join(dir, "m_test.go")+":"))
	}
	want := []string{"6:5: the error of Two() is discarded", "7:2: the error of One() is discarded", "13:2: the error of err is discarded"}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}
