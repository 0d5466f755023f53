// This file defines the small JSON encoders the writers share: strings,
// microsecond timestamps and objects built field by field.

package trace

import (
	"strconv"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string. Invalid UTF-8 becomes
// U+FFFD, as encoding/json does.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else if r == '\u2028' || r == '\u2029' {
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// appendMicros appends t in microseconds as an exact decimal: the Chrome
// format counts in microseconds, and six decimals keep every picosecond.
func appendMicros(b []byte, t Time) []byte {
	v := uint64(t)
	if t < 0 {
		b = append(b, '-')
		v = uint64(-(t + 1)) + 1 // no overflow at the smallest Time
	}
	b = strconv.AppendUint(b, v/1e6, 10)
	frac := v % 1e6
	if frac == 0 {
		return b
	}
	var digits [6]byte
	for i := 5; i >= 0; i-- {
		digits[i] = byte('0' + frac%10)
		frac /= 10
	}
	n := 6
	for digits[n-1] == '0' {
		n--
	}
	b = append(b, '.')
	return append(b, digits[:n]...)
}

// object appends the members of one JSON object, adding commas.
type object struct {
	b     []byte
	empty bool
}

func openObject(b []byte) object { return object{b: append(b, '{'), empty: true} }

func (o *object) key(k string) {
	if !o.empty {
		o.b = append(o.b, ',')
	}
	o.empty = false
	o.b = appendJSONString(o.b, k)
	o.b = append(o.b, ':')
}

func (o *object) int(k string, v int64) {
	o.key(k)
	o.b = strconv.AppendInt(o.b, v, 10)
}

func (o *object) str(k, v string) {
	o.key(k)
	o.b = appendJSONString(o.b, v)
}

func (o *object) micros(k string, t Time) {
	o.key(k)
	o.b = appendMicros(o.b, t)
}

func (o *object) raw(k string, v []byte) {
	o.key(k)
	o.b = append(o.b, v...)
}

func (o *object) close() []byte { return append(o.b, '}') }
