package api

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// filler sets every exported field it reaches to random values: strings
// that need escaping, nil, empty and full slices and maps, times and
// quantities of every form their marshalers know.
type filler struct {
	r       *rand.Rand
	density float64 // the chance that a pointer, slice or map is set
}

// weirdStrings are the strings encoding/json escapes in every way it can.
var weirdStrings = []string{"", "a", "web-0", "<b>&amp;</b>", "\u2028\u2029", "\x00\x01\x1f\x7f", "\b\f\n\r\t",
	`"\`, "\xff\xfe", "héllo", "日本語", "\xed\xa0\x80", "a\xc3", "🙂", "\u00e9\u0301", "\ufffd", "x\u2028y"}

// stringBytes are pieces random strings are made of.
var stringBytes = []string{"a", "Z", "0", " ", "<", ">", "&", `"`, `\`, "/", "\x00", "\x1f", "\x7f", "\x80",
	"\xc3", "\xa9", "é", "\u2028", "\u2029", "\n", "\t", "\b", "\f", "\r", "日", "\xf0\x9f"}

func (f *filler) string() string {
	if f.r.IntN(2) == 0 {
		return weirdStrings[f.r.IntN(len(weirdStrings))]
	}
	var b []byte
	for range f.r.IntN(8) {
		b = append(b, stringBytes[f.r.IntN(len(stringBytes))]...)
	}
	return string(b)
}

var quantityTexts = []string{"0", "1", "+1", "-1", "100m", "1000m", "0.5", ".5", "1.5Gi", "16Mi", "10Ki", "1e3", "1E6",
	"12345678901234567890", "0.000000001", "1n", "999999999999999999999Ei", "-5Ki", "3k", "2M", "1.0", "010"}

func (f *filler) quantity() resource.Quantity {
	switch f.r.IntN(5) {
	case 0:
		return resource.Quantity{}
	case 1:
		return *resource.NewMilliQuantity(f.r.Int64N(1e12)-1e11, resource.DecimalSI)
	case 2:
		return *resource.NewQuantity(f.r.Int64N(1<<40), resource.BinarySI)
	}
	q, err := resource.ParseQuantity(quantityTexts[f.r.IntN(len(quantityTexts))])
	if err != nil {
		panic(err)
	}
	return q
}

func (f *filler) time() time.Time {
	switch f.r.IntN(6) {
	case 0:
		return time.Time{}
	case 1:
		return time.Date(10000+f.r.IntN(3), 1, 2, 3, 4, 5, 6, time.UTC) // past RFC 3339's years
	case 2:
		return time.Date(-f.r.IntN(3), 1, 2, 3, 4, 5, 6, time.UTC)
	case 3:
		return time.Unix(f.r.Int64N(4e9), f.r.Int64N(1e9)).In(time.FixedZone("X", 3600*f.r.IntN(13)))
	}
	return time.Unix(f.r.Int64N(4e9), f.r.Int64N(1e9))
}

var (
	intOrStrType   = reflect.TypeFor[intstr.IntOrString]()
	fieldsV1Type   = reflect.TypeFor[metav1.FieldsV1]()
	fieldsV1Values = []string{`{}`, `{"f:metadata":{"f:labels":{".":{}}}}`, `not json`, `"<&>"`}
)

// fill sets v, which must be settable, at nesting depth.
func (f *filler) fill(v reflect.Value, depth int) {
	if depth > 14 {
		return
	}
	switch v.Type() {
	case timeType:
		v.Set(reflect.ValueOf(metav1.Time{Time: f.time()}))
		return
	case microTimeType:
		v.Set(reflect.ValueOf(metav1.MicroTime{Time: f.time()}))
		return
	case quantityType:
		v.Set(reflect.ValueOf(f.quantity()))
		return
	case intOrStrType:
		v.Set(reflect.ValueOf(intstr.FromInt32(f.r.Int32())))
		switch n := f.r.IntN(40); {
		case n == 0:
			v.Set(reflect.ValueOf(intstr.IntOrString{Type: 7})) // MarshalJSON refuses it
		case n < 20:
			v.Set(reflect.ValueOf(intstr.FromString(f.string())))
		}
		return
	case fieldsV1Type:
		v.Set(reflect.ValueOf(metav1.FieldsV1{Raw: []byte(fieldsV1Values[f.r.IntN(len(fieldsV1Values))])}))
		return
	}
	f.fillKind(v, depth)
}

func (f *filler) fillKind(v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(f.string())
	case reflect.Bool:
		v.SetBool(f.r.IntN(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(f.int(v.Type().Bits()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(f.int(v.Type().Bits()-1)) & (1<<(v.Type().Bits()-1) - 1))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(f.r.NormFloat64() * 1e3)
	case reflect.Pointer:
		if f.r.Float64() < f.density {
			v.Set(reflect.New(v.Type().Elem()))
			f.fill(v.Elem(), depth+1)
		}
	case reflect.Slice:
		f.fillSlice(v, depth)
	case reflect.Map:
		f.fillMap(v, depth)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				f.fill(v.Field(i), depth+1)
			}
		}
	}
}

// int is 0 a third of the time, else any value of bits bits.
func (f *filler) int(bits int) int64 {
	if f.r.IntN(3) == 0 {
		return 0
	}
	return int64(f.r.Uint64()) >> (64 - bits)
}

func (f *filler) fillSlice(v reflect.Value, depth int) {
	switch {
	case f.r.Float64() >= f.density:
		return // nil
	case f.r.IntN(4) == 0:
		v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		return
	}
	n := 1 + f.r.IntN(3)
	s := reflect.MakeSlice(v.Type(), n, n)
	for i := range n {
		f.fill(s.Index(i), depth+1)
	}
	v.Set(s)
}

func (f *filler) fillMap(v reflect.Value, depth int) {
	if f.r.Float64() >= f.density {
		return
	}
	m := reflect.MakeMap(v.Type())
	for range f.r.IntN(4) {
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		f.fill(k, depth+1)
		f.fill(e, depth+1)
		m.SetMapIndex(k, e)
	}
	v.Set(m)
}

// sameAsReflection checks that EncodeOwned and Encode write obj as plain
// encoding/json does (encodeReflect), or fail where it fails; it says
// whether the encoder without reflection wrote it.
func sameAsReflection(t testing.TB, obj Object) bool {
	t.Helper()
	want, wantErr := reflectEncoding(t, obj)
	for name, encode := range map[string]func(Object) ([]byte, error){"EncodeOwned": EncodeOwned, "Encode": Encode} {
		got, err := encode(obj)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%s error %v, encoding/json error %v", name, err, wantErr)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s differs from encoding/json:\ngot  %s\nwant %s", name, got, want)
		}
	}
	kinds, _, err := Scheme().ObjectKinds(obj)
	if err != nil {
		t.Fatal(err)
	}
	data, ok := encodeKnown(obj, kinds[0])
	if ok && !bytes.Equal(data, want) {
		t.Fatalf("encodeKnown differs from encoding/json:\ngot  %s\nwant %s", data, want)
	}
	return ok
}

// reflectEncoding is obj's encoding by encoding/json alone, with its
// kind's type fields, as Encode wrote every object before encodeKnown.
func reflectEncoding(t testing.TB, obj runtime.Object) ([]byte, error) {
	t.Helper()
	kinds, _, err := Scheme().ObjectKinds(obj)
	if err != nil {
		t.Fatal(err)
	}
	return encodeReflect(obj, kinds[0])
}

// TestEncodeKnownMatchesEncodingJSON fills Pods and Events with random
// values and compares their encodings with encoding/json's.
func TestEncodeKnownMatchesEncodingJSON(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 2000
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	f := &filler{r: rand.New(rand.NewPCG(seed, 12))}
	densities := []float64{0.05, 0.3, 0.6, 0.95}
	known := 0
	for i := range n {
		f.density = densities[i%len(densities)]
		var obj Object = &corev1.Pod{}
		if i%4 == 3 {
			obj = &corev1.Event{}
		}
		f.fill(reflect.ValueOf(obj).Elem(), 0)
		if sameAsReflection(t, obj) {
			known++
		}
	}
	t.Logf("%d of %d without reflection", known, n)
	if known < n/2 {
		t.Errorf("got %d of %d objects encoded without reflection, want at least half", known, n)
	}
}
