package registry

import (
	"math"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/bramble-edge/bramble/api"
)

// Field validation directives (the fieldValidation query parameter).
const (
	ValidationStrict = metav1.FieldValidationStrict
	ValidationWarn   = metav1.FieldValidationWarn
	ValidationIgnore = metav1.FieldValidationIgnore
)

// WriteOptions are the options of create, update, patch and apply.
type WriteOptions struct {
	DryRun bool
	// FieldValidation is Strict, Warn or Ignore; "" means Warn.
	FieldValidation string
	FieldManager    string
	Force           bool // apply only
}

func (o WriteOptions) strict() bool { return o.FieldValidation == ValidationStrict }

// warnings drops unknown-field warnings under fieldValidation=Ignore.
func (o WriteOptions) warnings(w []string) []string {
	if o.FieldValidation == ValidationIgnore {
		return nil
	}
	return w
}

// DeleteOptions are a delete's options.
type DeleteOptions struct {
	*metav1.DeleteOptions
	DryRun bool
}

func (o *DeleteOptions) orDefault() *DeleteOptions {
	if o == nil || o.DeleteOptions == nil {
		d := &DeleteOptions{DeleteOptions: &metav1.DeleteOptions{}}
		if o != nil {
			d.DryRun = o.DryRun
		}
		return d
	}
	return o
}

// ListOptions select and page a list.
type ListOptions struct {
	Labels labels.Selector // nil selects everything
	Fields fields.Selector // nil selects everything
	Limit  int64
	// Continue is the token of the previous page.
	Continue string
	// ResourceVersion and ResourceVersionMatch follow the API's rules;
	// Exact reads the list as of that revision.
	ResourceVersion      int64
	ResourceVersionMatch string
}

// Selects reports whether obj of res passes the label and field selectors.
func (o *ListOptions) Selects(res *api.Resource, obj api.Object) bool {
	if o.Labels != nil && !o.Labels.Empty() && !o.Labels.Matches(labels.Set(obj.GetLabels())) {
		return false
	}
	return o.Fields == nil || o.Fields.Empty() || o.Fields.Matches(api.FieldSet(res, obj))
}

// Filtered says whether any selector is set.
func (o *ListOptions) Filtered() bool {
	return (o.Labels != nil && !o.Labels.Empty()) || (o.Fields != nil && !o.Fields.Empty())
}

// List is one page of a list.
type List struct {
	Items           []api.Object
	ResourceVersion string
	Continue        string
	// Remaining counts the objects after this page, when known (0 if not).
	Remaining int64
}

// ParseResourceVersion reads a resourceVersion: "" and "0" give 0 (any
// version), anything else must be a decimal revision.
func ParseResourceVersion(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n > math.MaxInt64 {
		return 0, BadRequest("invalid resourceVersion %q: must be a decimal revision number such as \"1042\"", s)
	}
	return int64(n), nil
}

// FormatResourceVersion writes a revision as a resourceVersion.
func FormatResourceVersion(rev int64) string { return strconv.FormatInt(rev, 10) }
