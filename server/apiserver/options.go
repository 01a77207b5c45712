package apiserver

import (
	"net/url"
	"strconv"
	"strings"
	"unicode"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/bramble-edge/bramble/server/registry"
)

// Field validation directives (fieldValidation query parameter).
const (
	validationStrict = registry.ValidationStrict
	validationWarn   = registry.ValidationWarn
	validationIgnore = registry.ValidationIgnore
)

// writeOptions are the query parameters of create, update and patch.
type writeOptions = registry.WriteOptions

func parseWriteOptions(q url.Values) (writeOptions, error) {
	var o writeOptions
	var err error
	if o.DryRun, err = parseDryRun(q); err != nil {
		return o, err
	}
	if o.FieldValidation, err = parseFieldValidation(q.Get("fieldValidation")); err != nil {
		return o, err
	}
	if o.FieldManager, err = parseFieldManager(q.Get("fieldManager")); err != nil {
		return o, err
	}
	if o.Force, err = boolParam(q, "force"); err != nil {
		return o, err
	}
	return o, nil
}

// parseDryRun accepts dryRun=All (the only value Kubernetes defines).
func parseDryRun(q url.Values) (bool, error) {
	vals := q["dryRun"]
	for _, v := range vals {
		if v != metav1.DryRunAll {
			return false, badRequest("dryRun: Unsupported value: %q: supported values: \"All\"", v)
		}
	}
	return len(vals) > 0, nil
}

func parseFieldValidation(v string) (string, error) {
	for _, d := range []string{validationStrict, validationWarn, validationIgnore} {
		if strings.EqualFold(v, d) {
			return d, nil
		}
	}
	if v == "" {
		return validationWarn, nil
	}
	return "", badRequest("fieldValidation: Unsupported value: %q: supported values: \"Ignore\", \"Warn\", \"Strict\"", v)
}

func parseFieldManager(v string) (string, error) {
	if len(v) > 128 {
		return "", badRequest("fieldManager: Too long: may not be longer than 128 characters")
	}
	for _, c := range v {
		if !unicode.IsPrint(c) {
			return "", badRequest("fieldManager: Invalid value: %q: must consist of printable characters", v)
		}
	}
	return v, nil
}

// parseResourceVersion reads a resourceVersion: "" and "0" give 0 (any
// version), anything else must be a decimal revision.
func parseResourceVersion(s string) (int64, error) { return registry.ParseResourceVersion(s) }

// intParam reads an optional non-negative integer query parameter.
func intParam(q url.Values, name string) (int64, bool, error) {
	v := q.Get(name)
	if v == "" {
		return 0, false, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, false, badRequest("query parameter %s=%q: must be a non-negative integer", name, v)
	}
	return n, true, nil
}
