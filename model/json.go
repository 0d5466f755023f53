// This file defines the JSON form of models (see SCHEMA.md).

package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// WriteJSON writes p as indented JSON in the form described by SCHEMA.md,
// with the current FormatVersion. The output depends only on p.
func (p *Program) WriteJSON(w io.Writer) error {
	q := *p
	q.Version = FormatVersion
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // SSA names hold <-, & and <>; keep them readable
	return enc.Encode(&q)
}

// ReadJSON reads a program written by WriteJSON. It rejects other format
// versions, unknown fields, data after the program, and programs whose
// shape later stages cannot rely on (a node without an ID, a loop without
// a body, a successor outside its region, ...); errors name the line and
// column or the node at fault.
func ReadJSON(r io.Reader) (*Program, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading model JSON: %v", err)
	}
	// The version first: a model of another version fails it, not a field.
	var head struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, jsonError(data, -1, err)
	}
	switch {
	case head.Version == nil:
		return nil, fmt.Errorf("model JSON: no \"version\" field: not a predict program model")
	case *head.Version != FormatVersion:
		return nil, fmt.Errorf("model JSON: format version %d, this predict reads version %d", *head.Version, FormatVersion)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	p := new(Program)
	if err := dec.Decode(p); err != nil {
		return nil, jsonError(data, dec.InputOffset(), err)
	}
	if err := p.checkShape(); err != nil {
		return nil, fmt.Errorf("model JSON: %v", err)
	}
	return p, nil
}

// jsonError places err at its line and column in data; offset is where
// the decoder stopped, used when err carries no offset of its own (-1:
// none).
func jsonError(data []byte, offset int64, err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	msg := strings.TrimPrefix(err.Error(), "json: ")
	switch {
	case errors.As(err, &syntax):
		offset = max(syntax.Offset-1, 0) // the offending byte, not the one after it
	case errors.As(err, &typ):
		offset = typ.Offset
		msg = fmt.Sprintf("field %s: cannot read JSON %s into %s", typ.Field, typ.Value, typ.Type)
		if typ.Field == "" {
			msg = fmt.Sprintf("a JSON %s, not a program model", typ.Value)
		}
	}
	if offset < 0 || offset > int64(len(data)) {
		return fmt.Errorf("model JSON: %s", msg)
	}
	line, col := 1, 1
	for _, c := range data[:offset] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Errorf("model JSON: line %d, column %d: %s", line, col, msg)
}
