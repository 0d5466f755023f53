// This file defines a JSON reader that keeps the position of every value,
// so that errors about a machine file can name the line of the field at
// fault, and that tells keys apart by case ("o" and "O" are different
// LogGOPS parameters, which encoding/json would merge).

package machine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

type jsonKind uint8

const (
	jsonObject jsonKind = iota
	jsonArray
	jsonString
	jsonNumber
	jsonBool
	jsonNull
)

var jsonKindNames = [...]string{"an object", "an array", "a string", "a number", "a boolean", "null"}

func (k jsonKind) String() string { return jsonKindNames[k] }

// jsonValue is one JSON value and the offset of its first byte.
type jsonValue struct {
	kind   jsonKind
	off    int64
	text   string // a string's contents, a number's literal
	b      bool
	fields []jsonField // an object's members, in order
	elems  []*jsonValue
}

type jsonField struct {
	key string
	off int64 // offset of the key
	val *jsonValue
}

// readJSON reads one JSON value, the whole of data. Errors carry the byte
// offset of the problem (-1 when unknown).
func readJSON(data []byte) (*jsonValue, error) {
	r := &treeReader{data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	r.dec.UseNumber()
	v, err := r.value("")
	if err != nil {
		return nil, err
	}
	off := r.start()
	if _, err := r.dec.Token(); err != io.EOF {
		return nil, &offsetError{off, "", "extra data after the machine description"}
	}
	return v, nil
}

// offsetError is a problem at a byte offset of the input; field is the
// JSON path of the value concerned, if known.
type offsetError struct {
	off   int64
	field string
	msg   string
}

func (e *offsetError) Error() string { return e.msg }

type treeReader struct {
	data []byte
	dec  *json.Decoder
}

// start returns the offset of the next token: the decoder's offset past
// the separators and white space it has not consumed yet.
func (r *treeReader) start() int64 {
	off := r.dec.InputOffset()
	for off < int64(len(r.data)) {
		switch r.data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
			continue
		}
		break
	}
	return off
}

// token reads the token that starts at offset start.
func (r *treeReader) token(start int64) (json.Token, error) {
	tok, err := r.dec.Token()
	if err == nil {
		return tok, nil
	}
	var syntax *json.SyntaxError
	switch {
	case errors.As(err, &syntax):
		return nil, &offsetError{r.offending(syntax, start), "", "JSON syntax: " + syntax.Error()}
	case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
		return nil, &offsetError{int64(len(r.data)), "", "unexpected end of the input: the JSON is incomplete"}
	default:
		return nil, &offsetError{start, "", "JSON syntax: " + err.Error()}
	}
}

// offending returns the offset of the byte a syntax error is about, in a
// token that starts at start. Errors between tokens carry the offset of the
// character they quote; errors inside a value (a string, number or
// literal) carry a count that is no offset of the input, so they are
// placed at the start of the value.
func (r *treeReader) offending(e *json.SyntaxError, start int64) int64 {
	const prefix = "invalid character '"
	msg := e.Error()
	if strings.HasPrefix(msg, prefix) && len(msg) > len(prefix)+1 && msg[len(prefix)+1] == '\'' {
		if e.Offset >= 0 && e.Offset < int64(len(r.data)) && r.data[e.Offset] == msg[len(prefix)] {
			return e.Offset
		}
	}
	return start
}

func (r *treeReader) value(path string) (*jsonValue, error) {
	off := r.start()
	tok, err := r.token(off)
	if err != nil {
		return nil, err
	}
	v := &jsonValue{off: off}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			v.kind = jsonObject
			seen := map[string]bool{}
			for r.dec.More() {
				koff := r.start()
				ktok, err := r.token(koff)
				if err != nil {
					return nil, err
				}
				key := ktok.(string) // the decoder guarantees a string key
				if seen[key] {
					return nil, &offsetError{koff, join(path, key), "duplicate field"}
				}
				seen[key] = true
				val, err := r.value(join(path, key))
				if err != nil {
					return nil, err
				}
				v.fields = append(v.fields, jsonField{key, koff, val})
			}
		case '[':
			v.kind = jsonArray
			for r.dec.More() {
				e, err := r.value(fmt.Sprintf("%s[%d]", path, len(v.elems)))
				if err != nil {
					return nil, err
				}
				v.elems = append(v.elems, e)
			}
		}
		if _, err := r.token(r.start()); err != nil { // the closing delimiter
			return nil, err
		}
	case string:
		v.kind, v.text = jsonString, t
	case json.Number:
		v.kind, v.text = jsonNumber, string(t)
	case bool:
		v.kind, v.b = jsonBool, t
	case nil:
		v.kind = jsonNull
	}
	return v, nil
}

// join appends a key to a JSON path.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// lineCol converts a byte offset of data to a 1-based line and column
// (columns count characters).
func lineCol(data []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(data)))
	prefix := data[:off]
	line = 1 + bytes.Count(prefix, []byte{'\n'})
	if i := bytes.LastIndexByte(prefix, '\n'); i >= 0 {
		prefix = prefix[i+1:]
	}
	return line, 1 + utf8.RuneCount(prefix)
}
