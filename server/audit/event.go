package audit

import (
	"crypto/rand"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/bramble-edge/bramble/internal/uuid"
)

// Event is one line of the log, upstream's audit.k8s.io/v1 Event.
type Event struct {
	Kind                     string            `json:"kind"`
	APIVersion               string            `json:"apiVersion"`
	Level                    Level             `json:"level"`
	AuditID                  string            `json:"auditID"`
	Stage                    Stage             `json:"stage"`
	RequestURI               string            `json:"requestURI"`
	Verb                     string            `json:"verb"`
	User                     UserInfo          `json:"user"`
	SourceIPs                []string          `json:"sourceIPs,omitempty"`
	UserAgent                string            `json:"userAgent,omitempty"`
	ObjectRef                *ObjectReference  `json:"objectRef,omitempty"`
	ResponseStatus           *ResponseStatus   `json:"responseStatus,omitempty"`
	RequestObject            json.RawMessage   `json:"requestObject,omitempty"`
	ResponseObject           json.RawMessage   `json:"responseObject,omitempty"`
	RequestReceivedTimestamp MicroTime         `json:"requestReceivedTimestamp"`
	StageTimestamp           MicroTime         `json:"stageTimestamp"`
	Annotations              map[string]string `json:"annotations,omitempty"`
}

// UserInfo is who made the request.
type UserInfo struct {
	Username string   `json:"username,omitempty"`
	Groups   []string `json:"groups,omitempty"`
}

// ObjectReference is what the request was about.
type ObjectReference struct {
	Resource    string `json:"resource,omitempty"`
	Namespace   string `json:"namespace,omitempty"`
	Name        string `json:"name,omitempty"`
	APIGroup    string `json:"apiGroup,omitempty"`
	APIVersion  string `json:"apiVersion,omitempty"`
	Subresource string `json:"subresource,omitempty"`
}

// ResponseStatus holds the HTTP status of the answer; a failure also says
// so, as upstream's Status does.
type ResponseStatus struct {
	Metadata struct{} `json:"metadata"`
	Status   string   `json:"status,omitempty"`
	Code     int      `json:"code"`
}

// MicroTime is a UTC timestamp with microseconds, as metav1.MicroTime.
type MicroTime time.Time

// MarshalJSON writes RFC 3339 with six fractional digits.
func (t MicroTime) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 29)
	b = append(b, '"')
	b = time.Time(t).UTC().AppendFormat(b, "2006-01-02T15:04:05.000000Z07:00")
	return append(b, '"'), nil
}

// UnmarshalJSON reads what MarshalJSON writes (tests read the log back).
func (t *MicroTime) UnmarshalJSON(b []byte) error {
	var tt time.Time
	if err := json.Unmarshal(b, &tt); err != nil {
		return err
	}
	*t = MicroTime(tt)
	return nil
}

// newEvent starts the event of request r received at now: its ID (the
// client's Audit-ID header when it sent a sane one), URI, method, source
// and agent.
func newEvent(r *http.Request, now time.Time) *Event {
	id := r.Header.Get("Audit-ID")
	if id == "" || len(id) > 64 || strings.ContainsAny(id, " \"\\\n") {
		id = newID()
	}
	return &Event{Kind: "Event", APIVersion: "audit.k8s.io/v1", AuditID: id,
		RequestURI: r.URL.RequestURI(), Verb: strings.ToLower(r.Method),
		SourceIPs: []string{sourceIP(r)}, UserAgent: r.UserAgent(),
		RequestReceivedTimestamp: MicroTime(now)}
}

// newID is a random UUID (version 4).
func newID() string {
	var u [16]byte
	_, _ = rand.Read(u[:])
	return uuid.V4(u)
}

// sourceIP is the peer's address; forwarding headers are not trusted (the
// API server is reached directly).
func sourceIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
