package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/bramble-edge/bramble/mqtt"
)

// errNoViewEndpoint: the server answers 404 on the view path (a server
// older than the agent); the client lists by hand instead.
var errNoViewEndpoint = errors.New("the server has no view endpoint")

// busyError is a server asking the client to come back later (429 or
// 503), at the earliest after retryAfter.
type busyError struct {
	retryAfter time.Duration
	msg        string
}

func (e *busyError) Error() string { return e.msg }

// fetchView relists with one call: GET mqtt.ViewPath?since=since, the
// changes since since or the whole view. A server without the endpoint
// gets the list of pods and a GET per referenced object instead.
func (c *Client) fetchView(ctx context.Context, since int64) (*mqtt.View, error) {
	v, err := c.getView(ctx, since)
	if !errors.Is(err, errNoViewEndpoint) {
		return v, err
	}
	c.log.Debug("the server has no view endpoint; listing the pods and getting what they reference")
	st, err := c.fetchState(ctx)
	if err != nil {
		return nil, err
	}
	return &mqtt.View{Rev: st.Rev, Full: true, Changes: st.Objects}, nil
}

func (c *Client) getView(ctx context.Context, since int64) (*mqtt.View, error) {
	url := strings.TrimSuffix(c.cfg.APIServer, "/") + mqtt.ViewPath(c.node) + "?since=" + strconv.FormatInt(since, 10)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, mqtt.MaxViewBytes+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("read view: %w", err)
	case resp.StatusCode == http.StatusNotFound:
		return nil, errNoViewEndpoint
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable:
		return nil, &busyError{retryAfter: retryAfter(resp.Header.Get("Retry-After")),
			msg: fmt.Sprintf("view: server busy (%s): %s", resp.Status, firstLine(body))}
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("view: server answered %s: %s", resp.Status, firstLine(body))
	}
	v, err := mqtt.DecodeView(body)
	if err == nil && !v.Full && v.Since != since {
		err = fmt.Errorf("view: since: got %d, asked for %d", v.Since, since)
	}
	return v, err
}

// retryAfter reads a Retry-After in seconds (0 when absent or a date).
func retryAfter(h string) time.Duration {
	secs, err := strconv.Atoi(strings.TrimSpace(h))
	if err != nil || secs < 0 {
		return 0
	}
	return min(time.Duration(secs)*time.Second, time.Minute)
}

// Relist back-off: the first retry after about resyncWait, doubling up to
// resyncMaxWait, each wait drawn from [wait/2, wait] so that nodes that
// failed together do not come back together.
const (
	resyncWait    = 200 * time.Millisecond
	resyncMaxWait = 30 * time.Second
)

// jittered draws a wait from [d/2, d].
func jittered(d time.Duration) time.Duration {
	return d/2 + rand.N(d/2+1)
}
