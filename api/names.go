package api

import "math/rand/v2"

// Name generation as the real apiserver does it for metadata.generateName:
// the prefix, cut so the result fits a DNS label, plus five characters from
// an alphabet without vowels (so no words) and without look-alikes.
const (
	generatedSuffixLen = 5
	maxGeneratedPrefix = 63 - generatedSuffixLen
	nameAlphabet       = "bcdfghjklmnpqrstvwxz2456789"
)

// GenerateName returns prefix plus a random five-character suffix. The
// server calls it for objects that have generateName and no name, before
// validation, and retries with a new name if the result already exists.
func GenerateName(prefix string) string {
	if len(prefix) > maxGeneratedPrefix {
		prefix = prefix[:maxGeneratedPrefix]
	}
	b := make([]byte, generatedSuffixLen)
	for i := range b {
		b[i] = nameAlphabet[rand.IntN(len(nameAlphabet))]
	}
	return prefix + string(b)
}
