package provisioner

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// naiveDecode reads every "=" and two hex digits (either case) as that byte
// and every other byte as itself: the name a token would stand for if any
// spelling were allowed.
func naiveDecode(token string) string {
	var b []byte
	for i := 0; i < len(token); i++ {
		if token[i] == '=' && i+2 < len(token) {
			if v, err := strconv.ParseUint(token[i+1:i+3], 16, 8); err == nil {
				b = append(b, byte(v))
				i += 2
				continue
			}
		}
		b = append(b, token[i])
	}
	return string(b)
}

// Only the canonical spelling decodes: a token decodes exactly when encoding
// the name it decodes to gives the token back, over tokens made of the
// pieces that trip a decoder (escapes in both cases, needless escapes, cut
// escapes, UTF-8 lead and continuation bytes, characters outside the set).
func TestOnlyTheCanonicalSpellingDecodes(t *testing.T) {
	pieces := []string{"a", "Z", "0", "-", "_", "/", "=", "=3D", "=3d", "=41", "=2E", "=C3", "=A9", "=c3", "=E2=82", "=AC", "=F0=9F", "=ED=A0=80", "=FF", "=4", ".", " ", "é", "*"}
	rng := rand.New(rand.NewPCG(34, 1))
	decoded, refused := 0, 0
	for range 20000 {
		var token string
		for range 1 + rng.IntN(5) {
			token += pieces[rng.IntN(len(pieces))]
		}
		name, err := DecodeCollection(token)
		if err != nil {
			refused++
			if re, encErr := EncodeCollection(naiveDecode(token)); encErr == nil && re == token {
				t.Fatalf("%q is refused (%v) but is the spelling of %q", token, err, naiveDecode(token))
			}
			continue
		}
		decoded++
		if re, err := EncodeCollection(name); err != nil || re != token {
			t.Fatalf("%q decodes to %q, which encodes to %q, %v", token, name, re, err)
		}
	}
	if decoded < 1000 || refused < 1000 {
		t.Fatalf("%d tokens decoded, %d refused: the pieces no longer exercise both", decoded, refused)
	}
}

// Every name that is UTF-8 round-trips, and its token is a plain token.
func TestEveryUTF8NameRoundTrips(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 2))
	runes := []rune{'a', 'Z', '9', '-', '_', '/', '=', '.', ' ', '*', '>', 0, 0x7f, 'é', '€', 0xfffd, 0xfeff, 0x1f642, 0x10ffff}
	for range 20000 {
		var name []rune
		for range 1 + rng.IntN(6) {
			name = append(name, runes[rng.IntN(len(runes))])
		}
		token, err := EncodeCollection(string(name))
		if err != nil || !isPlainToken(token) {
			t.Fatalf("EncodeCollection(%q) = %q, %v", string(name), token, err)
		}
		if back, err := DecodeCollection(token); err != nil || back != string(name) {
			t.Fatalf("DecodeCollection(%q) = %q, %v; want %q", token, back, err, string(name))
		}
	}
}
