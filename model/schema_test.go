package model_test

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/predict-tools/predict/model"
)

// TestSchemaDocumentsEveryField checks that SCHEMA.md has a table row for
// every JSON field of the types a Program holds (positions are described
// in prose).
func TestSchemaDocumentsEveryField(t *testing.T) {
	doc, err := os.ReadFile("SCHEMA.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[reflect.Type]bool{}
	var check func(reflect.Type)
	check = func(typ reflect.Type) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ] || typ == reflect.TypeFor[model.Range]() {
			return
		}
		seen[typ] = true
		for f := range typ.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			if !strings.Contains(string(doc), "| `"+name+"` |") {
				t.Errorf("SCHEMA.md has no row for %s.%s (%q)", typ.Name(), f.Name, name)
			}
			check(f.Type)
		}
	}
	check(reflect.TypeFor[model.Program]())
}
