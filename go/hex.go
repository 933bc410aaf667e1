package provisioner

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// =hex escaping of collection names (docs/protocol.md, "=hex"): every byte of
// the name's UTF-8 form that is not one of A-Z a-z 0-9 - _ / is written "="
// and two upper-case hex digits. Only that one spelling is valid, so decoding
// is strict: DecodeCollection(t) succeeds only when EncodeCollection of the
// name gives t back. That is what keeps one collection from having two keys.

// unescaped[c] is true for the bytes written as themselves: A-Z a-z 0-9 - _ /.
var unescaped = func() (t [256]bool) {
	for _, c := range "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_/" {
		t[c] = true
	}
	return t
}()

const upperHex = "0123456789ABCDEF"

// EncodeCollection is a collection's name as a key token. It fails, with a
// *KeyError, for an empty name and for one that is not UTF-8: a key is
// UTF-8, and bytes that are not could not be named the same way by every
// client.
func EncodeCollection(name string) (string, error) {
	if name == "" {
		return "", &KeyError{Field: "collection", Message: "empty name"}
	}
	if !utf8.ValidString(name) {
		return "", &KeyError{Field: "collection", Value: name, Message: "not valid UTF-8"}
	}
	var b strings.Builder
	b.Grow(len(name) * 3)
	for i := 0; i < len(name); i++ {
		if c := name[i]; unescaped[c] {
			b.WriteByte(c)
		} else {
			b.Write([]byte{'=', upperHex[c>>4], upperHex[c&15]})
		}
	}
	return b.String(), nil
}

// DecodeCollection reads a key token back to the collection's name; it fails,
// with a *KeyError, for any spelling but the canonical one.
func DecodeCollection(token string) (string, error) {
	name, reason := decodeName(token)
	if reason != "" {
		return "", &KeyError{Field: "escaped collection", Value: token, Message: reason}
	}
	return name, nil
}

// decodeName is the name token escapes, or "" and why it is not a canonical
// spelling of one.
func decodeName(token string) (name, reason string) {
	if token == "" {
		return "", "empty token"
	}
	b := make([]byte, 0, len(token))
	for i := 0; i < len(token); i++ {
		c := token[i]
		if unescaped[c] {
			b = append(b, c)
			continue
		}
		if c != '=' {
			r, _ := utf8.DecodeRuneInString(token[i:])
			return "", fmt.Sprintf("%q at byte %d is not allowed (only A-Z a-z 0-9 - _ / and =XX escapes)", r, i)
		}
		if i+2 >= len(token) || !isHex(token[i+1]) || !isHex(token[i+2]) {
			return "", fmt.Sprintf(`"=" at byte %d is not followed by two hex digits`, i)
		}
		v := hexValue(token[i+1])<<4 | hexValue(token[i+2])
		switch {
		case unescaped[v]:
			return "", fmt.Sprintf("%q at byte %d escapes %q, which is written as itself", token[i:i+3], i, v)
		case token[i+1:i+3] != string([]byte{upperHex[v>>4], upperHex[v&15]}):
			return "", fmt.Sprintf("%q at byte %d is lower-case hex; write =%02X", token[i:i+3], i, v)
		}
		b = append(b, v)
		i += 2
	}
	if !utf8.Valid(b) {
		return "", "the escaped bytes are not valid UTF-8"
	}
	return string(b), ""
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'A' <= c && c <= 'F' || 'a' <= c && c <= 'f'
}

// hexValue is the value of a hex digit isHex accepts.
func hexValue(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}
