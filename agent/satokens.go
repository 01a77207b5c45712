package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/bramble-edge/bramble/agent/pods"
)

// podTokens requests the ServiceAccount tokens of the pods'
// serviceAccountToken projections from the API (POST
// serviceaccounts/{sa}/token, bound to the pod, with the node
// certificate) and keeps each until 80 % of its life has passed. Nothing
// is kept on disk: a restarted agent asks again.
type podTokens struct {
	now func() time.Time

	mu     sync.Mutex
	client *http.Client // nil until the agent has its credentials
	server string
	cache  map[tokenKey]*heldToken
}

var _ pods.TokenSource = (*podTokens)(nil)

// tokenKey is one projection of one pod.
type tokenKey struct {
	pod      types.UID
	audience string
	seconds  int64
}

type heldToken struct {
	token        []byte
	renew, until time.Time
}

func newPodTokens() *podTokens {
	return &podTokens{now: time.Now, cache: map[tokenKey]*heldToken{}}
}

// connect gives the source its API client, once the agent has one.
func (t *podTokens) connect(client *http.Client, server string) {
	t.mu.Lock()
	t.client, t.server = client, server
	t.mu.Unlock()
}

// Token returns a token for the projection p of pod, requesting a new one
// when none is held or the held one is past 80 % of its life.
func (t *podTokens) Token(ctx context.Context, pod *corev1.Pod, p *corev1.ServiceAccountTokenProjection) ([]byte, error) {
	seconds := int64(3600)
	if p.ExpirationSeconds != nil {
		seconds = *p.ExpirationSeconds
	}
	k := tokenKey{pod: pod.UID, audience: p.Audience, seconds: seconds}
	t.mu.Lock()
	held, client, server := t.cache[k], t.client, t.server
	t.mu.Unlock()
	now := t.now()
	if held != nil && now.Before(held.renew) {
		return held.token, nil
	}
	if client == nil {
		return nil, errors.New("no token yet: the agent is not connected to the server")
	}
	status, err := requestToken(ctx, client, server, pod, p.Audience, seconds)
	if err != nil {
		return nil, err
	}
	issued, until := now, status.ExpirationTimestamp.Time
	held = &heldToken{token: []byte(status.Token), until: until,
		renew: issued.Add(until.Sub(issued) * 8 / 10)}
	t.mu.Lock()
	t.cache[k] = held
	t.prune(now)
	t.mu.Unlock()
	return held.token, nil
}

// prune drops the tokens that expired (their pods are gone or will ask
// again). Callers hold mu.
func (t *podTokens) prune(now time.Time) {
	for k, h := range t.cache {
		if now.After(h.until) {
			delete(t.cache, k)
		}
	}
}

// requestToken posts a TokenRequest bound to pod for its ServiceAccount.
func requestToken(ctx context.Context, client *http.Client, server string, pod *corev1.Pod, audience string, seconds int64) (*authenticationv1.TokenRequestStatus, error) {
	req := authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &seconds,
		BoundObjectRef: &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: pod.Name, UID: pod.UID}}}
	if audience != "" {
		req.Spec.Audiences = []string{audience}
	}
	body, _ := json.Marshal(&req)
	u := fmt.Sprintf("%s/api/v1/namespaces/%s/serviceaccounts/%s/token", server,
		url.PathEscape(pod.Namespace), url.PathEscape(pod.Spec.ServiceAccountName))
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json")
	resp, err := client.Do(hr)
	if err != nil {
		return nil, fmt.Errorf("request token: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("request token: %w", err)
	}
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("request token for service account %s/%s: %s: %s", pod.Namespace, pod.Spec.ServiceAccountName, resp.Status, bytes.TrimSpace(data))
	}
	return decodeTokenStatus(data)
}

// decodeTokenStatus reads the TokenRequest the API answered.
func decodeTokenStatus(data []byte) (*authenticationv1.TokenRequestStatus, error) {
	var out authenticationv1.TokenRequest
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("decode TokenRequest: %w", err)
	}
	if out.Status.Token == "" || out.Status.ExpirationTimestamp.IsZero() {
		return nil, errors.New("decode TokenRequest: status.token or status.expirationTimestamp is empty")
	}
	return &out.Status, nil
}
