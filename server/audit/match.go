package audit

import (
	"fmt"
	"slices"
	"strings"
)

// Attributes are what a policy matches a request by.
type Attributes struct {
	User   string
	Groups []string
	Verb   string // get list watch create ...; for non-resource requests the lower-case method
	// ResourceRequest is false for non-resource paths (/healthz, /apis).
	ResourceRequest bool
	APIGroup        string
	APIVersion      string
	Resource        string
	Subresource     string
	Namespace       string
	Name            string
	Path            string // the URL path
}

// Decision is a policy's answer for one request.
type Decision struct {
	Level             Level
	omit              stageSet
	OmitManagedFields bool
}

// Omits reports whether events of stage are left out.
func (d Decision) Omits(s Stage) bool { return d.omit.has(s) }

// Decide finds the first rule a matches: its level, and the stages the
// rule and the policy leave out. No match is None.
func (p *Policy) Decide(a *Attributes) Decision {
	for i := range p.Rules {
		r := &p.Rules[i]
		if r.matches(a) {
			omf := p.OmitManagedFields
			if r.OmitManagedFields != nil {
				omf = *r.OmitManagedFields
			}
			return Decision{Level: r.Level, omit: p.stages | r.stages, OmitManagedFields: omf}
		}
	}
	return Decision{Level: LevelNone, omit: p.stages}
}

// logsBodies reports whether any rule may log a request body.
func (p *Policy) logsBodies() bool {
	return slices.ContainsFunc(p.Rules, func(r Rule) bool { return r.Level.atLeast(LevelRequest) })
}

func (r *Rule) matches(a *Attributes) bool {
	if len(r.Users) > 0 && !slices.Contains(r.Users, a.User) {
		return false
	}
	if len(r.UserGroups) > 0 && !slices.ContainsFunc(a.Groups, func(g string) bool { return slices.Contains(r.UserGroups, g) }) {
		return false
	}
	if len(r.Verbs) > 0 && !slices.Contains(r.Verbs, a.Verb) {
		return false
	}
	if len(r.NonResourceURLs)+len(r.Resources)+len(r.Namespaces) == 0 {
		return true
	}
	if !a.ResourceRequest {
		return len(r.Resources) == 0 && len(r.Namespaces) == 0 && r.matchesPath(a.Path)
	}
	if len(r.NonResourceURLs) > 0 {
		return false
	}
	if len(r.Namespaces) > 0 && !slices.Contains(r.Namespaces, a.Namespace) {
		return false
	}
	return len(r.Resources) == 0 || r.matchesResource(a)
}

// matchesPath: "*" is every path, "/x*" a prefix, anything else exact.
func (r *Rule) matchesPath(path string) bool {
	for _, u := range r.NonResourceURLs {
		if u == "*" || u == path || (strings.HasSuffix(u, "*") && strings.HasPrefix(path, strings.TrimSuffix(u, "*"))) {
			return true
		}
	}
	return false
}

// matchesResource follows upstream: "pods" is the pods themselves (not
// pods/log), "*" every resource with its subresources, "*/log" that
// subresource of any resource, "pods/*" pods and all their subresources.
func (r *Rule) matchesResource(a *Attributes) bool {
	combined := a.Resource
	if a.Subresource != "" {
		combined += "/" + a.Subresource
	}
	for _, gr := range r.Resources {
		if gr.Group != a.APIGroup {
			continue
		}
		if len(gr.Resources) == 0 {
			return true
		}
		if len(gr.ResourceNames) > 0 && !slices.Contains(gr.ResourceNames, a.Name) {
			continue
		}
		for _, res := range gr.Resources {
			switch {
			case res == combined, res == "*":
				return true
			case a.Subresource != "" && res == "*/"+a.Subresource:
				return true
			case strings.HasSuffix(res, "/*") && strings.TrimSuffix(res, "/*") == a.Resource:
				return true
			}
		}
	}
	return false
}

func (l Level) atLeast(o Level) bool { return l.rank() >= o.rank() }

func (l Level) rank() int {
	return slices.Index([]Level{LevelNone, LevelMetadata, LevelRequest, LevelRequestResponse}, l)
}

// stageSet is a set of stages as bits.
type stageSet uint8

var allStages = []Stage{StageRequestReceived, StageResponseStarted, StageResponseComplete, StagePanic}

func newStageSet(field string, stages []Stage) (stageSet, error) {
	var s stageSet
	for i, st := range stages {
		j := slices.Index(allStages, st)
		if j < 0 {
			return 0, fmt.Errorf("%s[%d] %q: must be RequestReceived, ResponseStarted, ResponseComplete or Panic", field, i, st)
		}
		s |= 1 << j
	}
	return s, nil
}

func (s stageSet) has(st Stage) bool {
	j := slices.Index(allStages, st)
	return j >= 0 && s&(1<<j) != 0
}
