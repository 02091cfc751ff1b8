package resources

import (
	"strconv"
	"strings"
)

// Plural returns n and noun, the noun with an s unless n is 1: "1 key",
// "2 keys", "0 keys". Every count in a message goes through it (nouns with a
// regular plural only).
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// WithArticle returns word after "a" or "an", chosen by its first letter:
// "a SecretSet", "an ImagePullSecret".
func WithArticle(word string) string {
	if word != "" && strings.ContainsRune("aeiouAEIOU", rune(word[0])) {
		return "an " + word
	}
	return "a " + word
}
