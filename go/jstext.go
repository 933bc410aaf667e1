package provisioner

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The service and the TypeScript client write their reasons with JavaScript's
// string semantics: positions count UTF-16 code units ("character 4") and
// quoted text is JSON.stringify's. These helpers reproduce both, so a reason
// the Go client gives reads exactly as the service's (the shared vectors hold
// them to it). They run only when building a reason, never on the fast path.

// units is s as JavaScript holds it: UTF-16 code units. A byte that is not
// UTF-8 becomes U+FFFD, as the service's UTF-8 decoding of a subject makes it.
func units(s string) []uint16 {
	return utf16.Encode([]rune(s))
}

// jsQuoteUnits is JSON.stringify of a string given as UTF-16 code units: a lone
// surrogate is written \udXXX, control characters as \b \f \n \r \t or \u00XX.
func jsQuoteUnits(u []uint16) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(u); i++ {
		c := u[i]
		switch {
		case c == '"':
			b.WriteString(`\"`)
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\b':
			b.WriteString(`\b`)
		case c == '\f':
			b.WriteString(`\f`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20:
			b.WriteString(`\u00`)
			b.WriteString(hex2(byte(c), false))
		case c >= 0xd800 && c <= 0xdbff && i+1 < len(u) && u[i+1] >= 0xdc00 && u[i+1] <= 0xdfff:
			b.WriteRune(utf16.DecodeRune(rune(c), rune(u[i+1])))
			i++
		case c >= 0xd800 && c <= 0xdfff:
			b.WriteString(`\u`)
			b.WriteString(strconv.FormatUint(uint64(c), 16))
		default:
			b.WriteRune(rune(c))
		}
	}
	b.WriteByte('"')
	return b.String()
}

// jsQuote is JSON.stringify of s.
func jsQuote(s string) string {
	if isPrintableASCII(s) {
		return `"` + s + `"`
	}
	return jsQuoteUnits(units(s))
}

func isPrintableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// unitsBefore is how many UTF-16 code units the first n bytes of s make.
func unitsBefore(s string, n int) int {
	count := 0
	for _, r := range s[:n] {
		if r >= 0x10000 {
			count += 2
		} else {
			count++
		}
	}
	return count
}

// codePoints is the length zod's string bounds measure: code points.
func codePoints(s string) int {
	return utf8.RuneCountInString(s)
}

const hexDigits = "0123456789ABCDEF"

// hex2 is b as two hex digits.
func hex2(b byte, upper bool) string {
	s := string([]byte{hexDigits[b>>4], hexDigits[b&15]})
	if !upper {
		return strings.ToLower(s)
	}
	return s
}
