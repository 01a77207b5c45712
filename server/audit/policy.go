// Package audit writes the API server's audit trail: one JSON line per
// request stage in upstream's audit.k8s.io/v1 Event shape, chosen and
// levelled by an audit.k8s.io/v1 Policy, into a file rotated by size, age
// and count (docs/AUDIT.md).
package audit

import (
	"fmt"
	"os"
	"strings"

	"sigs.k8s.io/yaml"
)

// Level is how much of a request an event holds.
type Level string

// The levels, from least to most.
const (
	LevelNone            Level = "None"
	LevelMetadata        Level = "Metadata"
	LevelRequest         Level = "Request"
	LevelRequestResponse Level = "RequestResponse"
)

// Stage is the point of a request's life an event describes.
type Stage string

// The stages upstream names. Panic is accepted in policies; bramble's API
// answers a panic with a 500, logged as ResponseComplete.
const (
	StageRequestReceived  Stage = "RequestReceived"
	StageResponseStarted  Stage = "ResponseStarted"
	StageResponseComplete Stage = "ResponseComplete"
	StagePanic            Stage = "Panic"
)

// Policy is an audit.k8s.io/v1 Policy: the first rule a request matches
// gives its level; no match is None.
type Policy struct {
	APIVersion        string   `json:"apiVersion"`
	Kind              string   `json:"kind"`
	Metadata          any      `json:"metadata,omitempty"`
	Rules             []Rule   `json:"rules"`
	OmitStages        []Stage  `json:"omitStages,omitempty"`
	OmitManagedFields bool     `json:"omitManagedFields,omitempty"`
	stages            stageSet // OmitStages as a set
}

// Rule matches requests by user, group, verb and either resources (with
// namespaces) or non-resource URLs; empty lists match everything.
type Rule struct {
	Level             Level            `json:"level"`
	Users             []string         `json:"users,omitempty"`
	UserGroups        []string         `json:"userGroups,omitempty"`
	Verbs             []string         `json:"verbs,omitempty"`
	Resources         []GroupResources `json:"resources,omitempty"`
	Namespaces        []string         `json:"namespaces,omitempty"`
	NonResourceURLs   []string         `json:"nonResourceURLs,omitempty"`
	OmitStages        []Stage          `json:"omitStages,omitempty"`
	OmitManagedFields *bool            `json:"omitManagedFields,omitempty"`
	stages            stageSet
}

// GroupResources names resources of one API group ("" is the core group).
// A resource may be "pods", "pods/log", "*", "*/status" or "pods/*".
type GroupResources struct {
	Group         string   `json:"group,omitempty"`
	Resources     []string `json:"resources,omitempty"`
	ResourceNames []string `json:"resourceNames,omitempty"`
}

// DefaultPolicy is used without --audit-policy-file: Metadata for every
// request, so no request or response body (a Secret's above all) is ever
// written; the RequestReceived stage is left out.
func DefaultPolicy() *Policy {
	p := &Policy{APIVersion: "audit.k8s.io/v1", Kind: "Policy",
		OmitStages: []Stage{StageRequestReceived},
		Rules:      []Rule{{Level: LevelMetadata}}}
	if err := p.validate(); err != nil {
		panic(err) // a constant policy
	}
	return p
}

// LoadPolicy reads and checks the policy file at path.
func LoadPolicy(path string) (*Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--audit-policy-file: %w", err)
	}
	p, err := DecodePolicy(data)
	if err != nil {
		return nil, fmt.Errorf("--audit-policy-file %s: %w", path, err)
	}
	return p, nil
}

// DecodePolicy parses a policy in YAML or JSON; unknown fields, unknown
// levels or stages and malformed rules are errors naming the field.
func DecodePolicy(data []byte) (*Policy, error) {
	var p Policy
	if err := yaml.UnmarshalStrict(data, &p); err != nil {
		return nil, fmt.Errorf("decode audit policy: %w", err)
	}
	if p.APIVersion != "audit.k8s.io/v1" || p.Kind != "Policy" {
		return nil, fmt.Errorf("apiVersion %q, kind %q: want audit.k8s.io/v1, Policy", p.APIVersion, p.Kind)
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	return &p, nil
}

func (p *Policy) validate() error {
	var err error
	if p.stages, err = newStageSet("omitStages", p.OmitStages); err != nil {
		return err
	}
	for i := range p.Rules {
		if err := p.Rules[i].validate(fmt.Sprintf("rules[%d]", i)); err != nil {
			return err
		}
	}
	return nil
}

func (r *Rule) validate(field string) error {
	switch r.Level {
	case LevelNone, LevelMetadata, LevelRequest, LevelRequestResponse:
	default:
		return fmt.Errorf("%s.level %q: must be None, Metadata, Request or RequestResponse", field, r.Level)
	}
	var err error
	if r.stages, err = newStageSet(field+".omitStages", r.OmitStages); err != nil {
		return err
	}
	if len(r.NonResourceURLs) > 0 && (len(r.Resources) > 0 || len(r.Namespaces) > 0) {
		return fmt.Errorf("%s: nonResourceURLs may not go with resources or namespaces", field)
	}
	for j, u := range r.NonResourceURLs {
		if u == "*" {
			continue
		}
		if !strings.HasPrefix(u, "/") || strings.Contains(strings.TrimSuffix(u, "*"), "*") {
			return fmt.Errorf("%s.nonResourceURLs[%d] %q: must start with / and may end with one *", field, j, u)
		}
	}
	for j, gr := range r.Resources {
		for k, res := range gr.Resources {
			if err := checkResource(res); err != nil {
				return fmt.Errorf("%s.resources[%d].resources[%d] %q: %w", field, j, k, res, err)
			}
		}
	}
	return nil
}

// checkResource accepts "x", "x/y", "*", "*/y" and "x/*": a name and at
// most one subresource.
func checkResource(res string) error {
	name, sub, hasSub := strings.Cut(res, "/")
	switch {
	case name == "":
		return fmt.Errorf("empty resource name")
	case hasSub && (sub == "" || strings.Contains(sub, "/")):
		return fmt.Errorf("must be resource or resource/subresource")
	}
	return nil
}
