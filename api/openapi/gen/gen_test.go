package main

import (
	"encoding/json"
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestDescription(t *testing.T) {
	for _, tc := range []struct {
		lines []string
		want  string
	}{
		{[]string{"Name of the thing.", "More of it."}, "Name of the thing. More of it."},
		{[]string{"First.", "", "Second."}, "First.\n\nSecond."},
		{[]string{"Example:", "  a: b", "done."}, "Example:\n  a: b\ndone."},
		{[]string{"Kept.", "+optional", "TODO: later", "+listType=map"}, "Kept."},
		{[]string{"Shown.", "---", "Hidden."}, "Shown."},
		{nil, ""},
	} {
		if got := description(tc.lines); got != tc.want {
			t.Errorf("description(%q) = %q, want %q", tc.lines, got, tc.want)
		}
	}
}

func TestTags(t *testing.T) {
	got := tags([]string{"doc", "+optional", "+listType=map", "+listMapKey=a", "+listMapKey=b"})
	want := map[string][]string{"optional": {""}, "listType": {"map"}, "listMapKey": {"a", "b"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestIsRequired(t *testing.T) {
	for _, tc := range []struct {
		lines, opts []string
		want        bool
		err         bool
	}{
		{nil, nil, true, false},
		{nil, []string{"omitempty"}, false, false},
		{[]string{"+optional"}, nil, false, false},
		{[]string{"+required"}, []string{"omitempty"}, true, false},
		{[]string{"+required", "+optional"}, nil, false, true},
	} {
		got, err := isRequired(tc.lines, tc.opts)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("isRequired(%q, %q) = %v, %v; want %v, error %v", tc.lines, tc.opts, got, err, tc.want, tc.err)
		}
	}
}

func TestZeroDefault(t *testing.T) {
	type single struct{ metav1.Time }
	for _, tc := range []struct {
		typ       reflect.Type
		omitEmpty bool
		want      string
	}{
		{reflect.TypeOf(""), false, `""`},
		{reflect.TypeOf(""), true, `null`},
		{reflect.TypeOf(int32(0)), false, `0`},
		{reflect.TypeOf(false), false, `false`},
		{reflect.TypeOf(metav1.ObjectMeta{}), true, `{}`},
		{reflect.TypeOf(&metav1.ObjectMeta{}), false, `null`},
		{reflect.TypeOf(metav1.Time{}), false, `null`}, // writes its own JSON: null is its zero
		{reflect.TypeOf(single{}), false, `null`},
		{reflect.TypeOf([]string{}), false, `null`},
	} {
		b, _ := json.Marshal(zeroDefault(tc.typ, tc.omitEmpty))
		if string(b) != tc.want {
			t.Errorf("zeroDefault(%s, %v) = %s, want %s", tc.typ, tc.omitEmpty, b, tc.want)
		}
	}
}

func TestDefinitionName(t *testing.T) {
	if got := definitionName(reflect.TypeOf(metav1.ObjectMeta{})); got != "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" {
		t.Fatalf("got %s", got)
	}
}
