package modelgen

import (
	"strings"
	"testing"
)

// BenchmarkModelTestPrograms loads and models each test program (the whole
// of `predict model`'s work):
//
//	go test ./modelgen -run '^$' -bench ModelTestPrograms -benchtime 5x
func BenchmarkModelTestPrograms(b *testing.B) {
	for _, dir := range testPrograms(b) {
		name := strings.TrimPrefix(dir, "../testprogs/")
		b.Run(name, func(b *testing.B) {
			for range b.N {
				l, err := Load(Config{Dir: "..", Pattern: "./" + strings.TrimPrefix(dir, "../")})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Build(l, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
