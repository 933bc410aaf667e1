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

// EncodeCollection is a collection's name as a key token. It fails for an
// empty name and for one that is not UTF-8 (the TypeScript client refuses a
// lone surrogate, which is what such bytes stand for), with the message the
// TypeScript client gives.
func EncodeCollection(name string) (string, error) {
	if name == "" {
		return "", &KeyError{Message: "a collection name must not be empty"}
	}
	i := 0
	for i < len(name) && unescaped[name[i]] {
		i++
	}
	if i == len(name) {
		return name, nil // nothing to escape
	}
	if !utf8.ValidString(name) {
		return "", &KeyError{Message: notUTF8(name)}
	}
	var b strings.Builder
	b.Grow(len(name) * 3)
	b.WriteString(name[:i])
	for ; i < len(name); i++ {
		c := name[i]
		if unescaped[c] {
			b.WriteByte(c)
		} else {
			b.WriteByte('=')
			b.WriteString(hex2(c, true))
		}
	}
	return b.String(), nil
}

// notUTF8 says where a name stops being UTF-8: a surrogate's three bytes (how a
// lone surrogate is held outside UTF-16) are named as the TypeScript client
// names the lone surrogate.
func notUTF8(name string) string {
	for i := 0; i < len(name); {
		r, size := utf8.DecodeRuneInString(name[i:])
		if r != utf8.RuneError || size > 1 {
			i += size
			continue
		}
		at := unitsBefore(name, i) + 1
		if i+2 < len(name) && name[i] == 0xed && name[i+1] >= 0xa0 && name[i+1] <= 0xbf && name[i+2] >= 0x80 && name[i+2] <= 0xbf {
			sur := 0xd000 | uint16(name[i+1]&0x3f)<<6 | uint16(name[i+2]&0x3f)
			return fmt.Sprintf("collection name has a lone surrogate U+%04X at character %d; it cannot be written as UTF-8", sur, at)
		}
		return fmt.Sprintf("collection name is not UTF-8: byte 0x%02X at character %d", name[i], at)
	}
	return "collection name is not UTF-8"
}

// DecodeCollection reads a key token back to the collection's name; it fails,
// with the reason the service gives, for any spelling but the canonical one.
func DecodeCollection(token string) (string, error) {
	name, reason := decodeName(token)
	if reason != "" {
		return "", &KeyError{Message: `"` + token + `" is not an escaped collection name: ` + reason}
	}
	return name, nil
}

// decodeName is the service's decodeName: the name, or "" and the reason.
func decodeName(escaped string) (string, string) {
	if escaped == "" {
		return "", "the escaped name is empty"
	}
	i := 0
	for i < len(escaped) && unescaped[escaped[i]] {
		i++
	}
	if i == len(escaped) {
		return escaped, ""
	}
	// The slow path works on UTF-16 code units, as the service does, so that
	// positions and quoted pieces in a reason come out the same.
	u := units(escaped)
	n := len(u)
	bytes := make([]byte, 0, n)
	at := func(k int) uint16 {
		if k < n {
			return u[k]
		}
		return 128
	}
	for i = 0; i < n; i++ {
		c := u[i]
		if c < 128 && unescaped[c] {
			bytes = append(bytes, byte(c))
			continue
		}
		if c != '=' {
			return "", badCharacter(u, i)
		}
		h, l := at(i+1), at(i+2)
		hv, lv := hexValue(h), hexValue(l)
		if hv < 0 || lv < 0 {
			return "", seqAt(u, i) + `: "=" must be followed by two upper-case hex digits (write "=3D" for "=" itself)`
		}
		b := byte(hv<<4 | lv)
		if b < 128 && unescaped[b] {
			ch := string(rune(b))
			return "", fmt.Sprintf(`%s escapes "%s", which needs no escape; write "%s" itself`, seqAt(u, i), ch, ch)
		}
		if h >= 0x61 || l >= 0x61 {
			return "", fmt.Sprintf(`%s uses lower-case hex; write "=%s"`, seqAt(u, i), hex2(b, true))
		}
		bytes = append(bytes, b)
		i += 2
	}
	if utf8.Valid(bytes) {
		return string(bytes), ""
	}
	return "", explainUTF8(u, bytes)
}

func hexValue(c uint16) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	}
	return -1
}

// seqAt is the escape starting at unit i, quoted, with its 1-based position.
func seqAt(u []uint16, i int) string {
	end := min(i+3, len(u))
	return fmt.Sprintf("%s at character %d", jsQuoteUnits(u[i:end]), i+1)
}

func badCharacter(u []uint16, i int) string {
	cp := rune(u[i])
	ch := u[i : i+1]
	if cp >= 0xd800 && cp <= 0xdbff && i+1 < len(u) && u[i+1] >= 0xdc00 && u[i+1] <= 0xdfff {
		cp = 0x10000 + (cp-0xd800)<<10 + rune(u[i+1]-0xdc00)
		ch = u[i : i+2]
	}
	hint := ""
	if cp < 0xd800 || cp > 0xdfff {
		enc, _ := EncodeCollection(string(cp))
		hint = "; write it as " + jsQuote(enc)
	}
	return fmt.Sprintf("character %d %s (U+%04X) is not allowed in an escaped name (only A-Z a-z 0-9 - _ / and =XX escapes)%s", i+1, jsQuoteUnits(ch), cp, hint)
}

// explainUTF8 names the first ill-formed UTF-8 sequence (Unicode Table 3-7)
// by its escaped spelling and position. Every unit before it is ASCII.
func explainUTF8(u []uint16, bytes []byte) string {
	start, end, why, ok := firstIllFormed(bytes)
	if !ok {
		return "the escaped bytes are not valid UTF-8"
	}
	pos := 0
	for b := 0; b < start; b++ {
		pos += step(u, pos)
	}
	stop := pos
	for b := start; b < end; b++ {
		stop += step(u, stop)
	}
	return fmt.Sprintf("bytes are not valid UTF-8: %s at character %d %s", jsQuoteUnits(u[pos:stop]), pos+1, why)
}

func step(u []uint16, pos int) int {
	if u[pos] == '=' {
		return 3
	}
	return 1
}

func firstIllFormed(b []byte) (start, end int, why string, ok bool) {
	k := len(b)
	for i := 0; i < k; {
		b0 := b[i]
		switch {
		case b0 < 0x80:
			i++
			continue
		case b0 < 0xc0:
			return i, i + 1, "is a continuation byte without a lead byte", true
		case b0 < 0xc2:
			return i, i + 1, "starts an overlong encoding", true
		case b0 > 0xf4:
			return i, i + 1, "is a byte that never appears in UTF-8", true
		}
		need := 3
		if b0 < 0xe0 {
			need = 1
		} else if b0 < 0xf0 {
			need = 2
		}
		lo, hi, narrowWhy := byte(0x80), byte(0xbf), ""
		switch b0 {
		case 0xe0:
			lo, narrowWhy = 0xa0, "is an overlong encoding"
		case 0xed:
			hi, narrowWhy = 0x9f, "encodes a surrogate (U+D800-U+DFFF)"
		case 0xf0:
			lo, narrowWhy = 0x90, "is an overlong encoding"
		case 0xf4:
			hi, narrowWhy = 0x8f, "encodes a code point above U+10FFFF"
		}
		for j := 1; j <= need; j++ {
			if i+j >= k {
				return i, k, "is cut short at the end of the name", true
			}
			c := b[i+j]
			isCont := c >= 0x80 && c <= 0xbf
			if j == 1 && isCont && (c < lo || c > hi) {
				return i, i + 2, narrowWhy, true
			}
			if !isCont {
				return i, i + j + 1, "is cut short (a continuation byte is missing)", true
			}
		}
		i += need + 1
	}
	return 0, 0, "", false
}
