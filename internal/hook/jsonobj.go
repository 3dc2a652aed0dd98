package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// object is a JSON object that keeps its keys in the order they were read,
// so editing one key of a settings file leaves the rest as the person wrote it.
type object []member

type member struct {
	key string
	val json.RawMessage
}

var errNotObject = errors.New("not a JSON object")

// parseObject reads a JSON object; data must hold nothing else.
func parseObject(data []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errNotObject
	}
	o := object{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		o = append(o, member{key, raw})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the top-level object")
	}
	return o, nil
}

// get returns the value of key (the last one, as JSON readers do).
func (o object) get(key string) (json.RawMessage, bool) {
	for i := len(o) - 1; i >= 0; i-- {
		if o[i].key == key {
			return o[i].val, true
		}
	}
	return nil, false
}

// set replaces key's value where it stands (dropping duplicates), or appends it.
func (o *object) set(key string, val json.RawMessage) {
	out := (*o)[:0:0]
	done := false
	for _, m := range *o {
		if m.key == key {
			if !done {
				out = append(out, member{key, val})
				done = true
			}
			continue
		}
		out = append(out, m)
	}
	if !done {
		out = append(out, member{key, val})
	}
	*o = out
}

// del removes key.
func (o *object) del(key string) {
	out := (*o)[:0:0]
	for _, m := range *o {
		if m.key != key {
			out = append(out, m)
		}
	}
	*o = out
}

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func mustRaw(v any) json.RawMessage {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return data
}

// syntaxLine names the line of a JSON syntax error in data.
func syntaxLine(data []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off := int(se.Offset)
		if off > len(data) {
			off = len(data)
		}
		return fmt.Sprintf("line %d", bytes.Count(data[:off], []byte("\n"))+1)
	}
	return "its top level"
}
