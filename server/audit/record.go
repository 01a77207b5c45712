package audit

import (
	"context"
	"sync"
	"time"
)

// Request is what the API found a request to be about, for SetRequest.
type Request struct {
	Verb string
	// ResourceRequest is false for non-resource paths; the rest of the
	// fields then stay empty.
	ResourceRequest bool
	APIGroup        string
	APIVersion      string
	Resource        string
	Subresource     string
	Namespace       string
	Name            string
	// LongRunning requests (watches, log streams, exec, attach,
	// port-forward) get a ResponseStarted event as well.
	LongRunning bool
}

type ctxKey struct{}

// record is one request's audit state, reached through its context.
type record struct {
	mu          sync.Mutex
	l           *Logger
	ev          *Event
	attrs       Attributes
	userSet     bool
	decided     bool
	d           Decision
	longRunning bool
	received    bool // RequestReceived written (or left out)
	started     bool // ResponseStarted written (or not needed)
	code        int
	reqBody     capture
	respBody    capture
}

func fromContext(ctx context.Context) *record {
	rec, _ := ctx.Value(ctxKey{}).(*record)
	return rec
}

// SetUser notes who made the request; without an audit log it does
// nothing.
func SetUser(ctx context.Context, name string, groups []string) {
	if rec := fromContext(ctx); rec != nil {
		rec.mu.Lock()
		rec.attrs.User, rec.attrs.Groups, rec.userSet = name, groups, true
		rec.mu.Unlock()
	}
}

// SetRequest notes what the request is about, decides its level, and
// writes its RequestReceived event unless the policy leaves it out. Call it
// after SetUser, before the body is read.
func SetRequest(ctx context.Context, req Request) {
	rec := fromContext(ctx)
	if rec == nil {
		return
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	a := &rec.attrs
	a.Verb, a.ResourceRequest = req.Verb, req.ResourceRequest
	a.APIGroup, a.APIVersion, a.Resource, a.Subresource = req.APIGroup, req.APIVersion, req.Resource, req.Subresource
	a.Namespace, a.Name = req.Namespace, req.Name
	rec.longRunning = req.LongRunning
	rec.decided = false
	rec.decide()
	rec.received = true
	rec.emit(StageRequestReceived, rec.l.now())
}

// receivedLate writes the RequestReceived event of a request no one
// called SetRequest for (a public path, a failed login), stamped when it
// arrived. Callers hold mu.
func (rec *record) receivedLate() {
	if !rec.received {
		rec.received = true
		rec.emit(StageRequestReceived, time.Time(rec.ev.RequestReceivedTimestamp))
	}
}

// SetObjectName fills in the name of a create's object (known from its
// body, or made from generateName), as upstream's events carry it.
func SetObjectName(ctx context.Context, name string) {
	if rec := fromContext(ctx); rec != nil && name != "" {
		rec.mu.Lock()
		rec.attrs.Name = name
		if rec.ev.ObjectRef != nil {
			rec.ev.ObjectRef.Name = name
		}
		rec.mu.Unlock()
	}
}

// BodyAnnotation says why a request body the level asks for is missing
// (a protobuf body, one over 1 MiB).
const BodyAnnotation = "audit.bramble.dev/request-body"

// Annotate adds key=value to the request's events.
func Annotate(ctx context.Context, key, value string) {
	if rec := fromContext(ctx); rec != nil {
		rec.mu.Lock()
		rec.annotate(key, value)
		rec.mu.Unlock()
	}
}

func (rec *record) annotate(key, value string) {
	if rec.ev.Annotations == nil {
		rec.ev.Annotations = map[string]string{}
	}
	rec.ev.Annotations[key] = value
}

// decide fills in the event's user, verb and object from the attributes
// and asks the policy for the level, once. Callers hold mu.
func (rec *record) decide() {
	if rec.decided {
		return
	}
	a := &rec.attrs
	if !rec.userSet {
		a.User, a.Groups = "system:anonymous", []string{"system:unauthenticated"}
	}
	ev := rec.ev
	ev.User = UserInfo{Username: a.User, Groups: a.Groups}
	if a.Verb == "" {
		a.Verb = ev.Verb // the lower-case method, as upstream's non-resource verbs
	}
	ev.Verb = a.Verb
	if a.ResourceRequest {
		ev.ObjectRef = &ObjectReference{Resource: a.Resource, Namespace: a.Namespace, Name: a.Name,
			APIGroup: a.APIGroup, APIVersion: a.APIVersion, Subresource: a.Subresource}
	}
	rec.d = rec.l.policy.Decide(a)
	ev.Level = rec.d.Level
	rec.decided = true
}

// level is the decided level, or None while undecided.
func (rec *record) level() Level {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if !rec.decided {
		return LevelNone
	}
	return rec.d.Level
}

// responseStarted writes a long-running request's ResponseStarted event,
// once, when its answer begins.
func (rec *record) responseStarted(code int) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.started {
		return
	}
	rec.started, rec.code = true, code
	if rec.longRunning {
		rec.decide()
		rec.receivedLate()
		rec.emit(StageResponseStarted, rec.l.now())
	}
}

// complete writes the ResponseComplete event.
func (rec *record) complete(code int) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.code = code
	rec.decide()
	rec.receivedLate()
	rec.emit(StageResponseComplete, rec.l.now())
}

// emit writes the event at stage unless the level is None or the stage
// is left out. Callers hold mu.
func (rec *record) emit(stage Stage, now time.Time) {
	if rec.d.Level == LevelNone || rec.d.Omits(stage) {
		return
	}
	ev := rec.ev
	ev.Stage, ev.StageTimestamp = stage, MicroTime(now)
	ev.ResponseStatus, ev.RequestObject, ev.ResponseObject = nil, nil, nil
	if stage != StageRequestReceived {
		ev.ResponseStatus = &ResponseStatus{Code: rec.code}
		if rec.code >= 400 {
			ev.ResponseStatus.Status = "Failure"
		}
	}
	if rec.d.Level.atLeast(LevelRequest) {
		ev.RequestObject = rec.reqBody.object(rec.d.OmitManagedFields)
		if why := rec.reqBody.skipped(); why != "" {
			rec.annotate(BodyAnnotation, why)
		}
	}
	if stage == StageResponseComplete && rec.d.Level == LevelRequestResponse {
		ev.ResponseObject = rec.respBody.object(rec.d.OmitManagedFields)
	}
	rec.l.write(ev)
}
