package config

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"

	"github.com/magiconair/properties"
)

// binding is one typed config field bound to its Java property key.
//
// Struct tag form: `prop:"key[,omitempty][,render=name]"`. omitempty drops an
// empty string from rendered output (Java fields whose default is null);
// render names the key used in GET_*_CONFIG output when Java prints the field
// name rather than the setter name (isProcessReadEvent).
type binding struct {
	key       string
	render    string
	omitEmpty bool
	v         reflect.Value
}

// bindings lists the prop-tagged fields of the struct ptr points to,
// descending into embedded (anonymous) structs.
func bindings(ptr any) []binding {
	return appendBindings(nil, reflect.ValueOf(ptr).Elem())
}

func appendBindings(out []binding, v reflect.Value) []binding {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			out = appendBindings(out, v.Field(i))
			continue
		}
		tag, ok := f.Tag.Lookup("prop")
		if !ok || tag == "-" {
			continue
		}
		out = append(out, parseTag(tag, v.Field(i)))
	}
	return out
}

func parseTag(tag string, v reflect.Value) binding {
	parts := strings.Split(tag, ",")
	b := binding{key: parts[0], render: parts[0], v: v}
	for _, p := range parts[1:] {
		switch {
		case p == "omitempty":
			b.omitEmpty = true
		case strings.HasPrefix(p, "render="):
			b.render = strings.TrimPrefix(p, "render=")
		}
	}
	return b
}

// set parses raw like Java's MixAll.properties2Object: a string is
// trimmed, other values are not (java.util.Properties strips only the
// blanks before a value), ints are 32-bit, longs 64-bit. Booleans accept
// only true/false (any case), so "true " is refused, where Java would
// silently read it (and anything else) as false; a number with a blank
// is refused where Java ignores the key.
func (b binding) set(raw string) error {
	s := raw
	switch b.v.Kind() {
	case reflect.String:
		b.v.SetString(strings.TrimSpace(s))
	case reflect.Bool:
		return b.setBool(s)
	case reflect.Int, reflect.Int32:
		return b.setInt(s, 32, "int")
	case reflect.Int64:
		return b.setInt(s, 64, "long")
	default:
		return fmt.Errorf("%w: %s has unsupported kind %s", ErrInvalid, b.key, b.v.Kind())
	}
	return nil
}

func (b binding) setBool(s string) error {
	switch strings.ToLower(s) {
	case "true":
		b.v.SetBool(true)
	case "false":
		b.v.SetBool(false)
	default:
		return &keyError{b.key, fmt.Errorf("%w: %s (%s) is not a boolean (true or false)", ErrInvalid, b.key, s)}
	}
	return nil
}

func (b binding) setInt(s string, bits int, kind string) error {
	n, err := strconv.ParseInt(s, 10, bits)
	if err != nil {
		return &keyError{b.key, fmt.Errorf("%w: %s (%s) is not a valid %s", ErrInvalid, b.key, s, kind)}
	}
	b.v.SetInt(n)
	return nil
}

// keyError is a value that does not parse as its key's type.
type keyError struct {
	key string
	err error
}

func (e *keyError) Error() string { return e.err.Error() }
func (e *keyError) Unwrap() error { return e.err }

// namingEnv adds to each parse error of a key set by an environment
// variable (from maps key to variable) the variable's name.
func namingEnv(errs []error, from map[string]string) []error {
	out := make([]error, len(errs))
	for i, err := range errs {
		out[i] = err
		if ke := (*keyError)(nil); errors.As(err, &ke) && from[ke.key] != "" {
			out[i] = fmt.Errorf("%w (set by environment variable %s)", err, from[ke.key])
		}
	}
	return out
}

// format renders the field as Java's toString would; ok is false for an
// omitted empty string.
func (b binding) format() (string, bool) {
	switch b.v.Kind() {
	case reflect.String:
		s := b.v.String()
		return s, s != "" || !b.omitEmpty
	case reflect.Bool:
		return strconv.FormatBool(b.v.Bool()), true
	default:
		return strconv.FormatInt(b.v.Int(), 10), true
	}
}

// applyProps sets every binding found in props. Parse errors are returned
// (one per key) and leave the field unchanged.
func applyProps(bs []binding, props map[string]string) []error {
	var errs []error
	for _, b := range bs {
		raw, ok := props[b.key]
		if !ok {
			continue
		}
		if err := b.set(raw); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// renderInto writes every binding into out, overriding raw values (Java merges
// the config objects over the file properties).
func renderInto(out map[string]string, bs []binding) {
	for _, b := range bs {
		if s, ok := b.format(); ok {
			out[b.render] = s
		}
	}
}

// parseProperties reads Java .properties text (escapes, continuations,
// comments). ${} expansion is disabled to match Java. Text is read as UTF-8;
// \uXXXX escapes work as in Java.
func parseProperties(text []byte) (map[string]string, error) {
	l := &properties.Loader{Encoding: properties.UTF8, DisableExpansion: true}
	p, err := l.LoadBytes(text)
	if err != nil {
		return nil, err
	}
	return p.Map(), nil
}

func readPropertiesFile(path string) (map[string]string, error) {
	props, _, err := readPropertiesLines(path)
	return props, err
}

// readPropertiesLines is readPropertiesFile also returning the file's
// lines with no separator (read once: the -c file may be a pipe).
func readPropertiesLines(path string) (map[string]string, map[string]bareLine, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrLoad, err)
	}
	props, err := parseProperties(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %s: %w", ErrLoad, path, err)
	}
	return props, bareLines(data), nil
}
