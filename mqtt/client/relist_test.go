package client

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"github.com/bramble-edge/bramble/mqtt"
)

func (l *fakeLink) takeSinces() []int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.sinces
	l.sinces = nil
	return out
}

func (l *fakeLink) setView(f func(since int64) (*mqtt.View, error)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.view = f
}

func TestStreamRelistsFromWhatItHolds(t *testing.T) {
	s, link, app := runStream(t)
	if got := link.takeSinces(); !reflect.DeepEqual(got, []int64{0}) {
		t.Fatalf("first relist: got since %v, want [0] (holding nothing)", got)
	}
	link.setView(func(since int64) (*mqtt.View, error) {
		ev := event(25, since, "a").ev
		return &mqtt.View{Rev: 25, Since: since, Changes: ev.Changes}, nil
	})
	s.q.push(event(20, 15, "missed-before")) // a gap; no catch-up comes
	expect(t, "relist from 10", app, link, []string{"apply 25 [a]"}, []string{"HELLO 10", "ACK 25"})
	if got := link.takeSinces(); !reflect.DeepEqual(got, []int64{10}) {
		t.Errorf("relist after a gap: got since %v, want [10]", got)
	}

	app.mu.Lock()
	app.fail = true // the changes do not apply: the next try asks for everything
	app.mu.Unlock()
	link.setView(func(since int64) (*mqtt.View, error) {
		if since == 0 {
			return &mqtt.View{Rev: 40, Full: true}, nil
		}
		return &mqtt.View{Rev: 40, Since: since, Changes: event(40, since, "b").ev.Changes}, nil
	})
	s.q.push(item{ev: &mqtt.Event{Type: mqtt.EventRelist, Rev: 40, Prev: 25}})
	expect(t, "failed changes, then everything", app, link, []string{"failed 40", "resync 40"}, []string{"ACK 40"})
	if got := link.takeSinces(); !reflect.DeepEqual(got, []int64{25, 0}) {
		t.Errorf("relists: got since %v, want [25 0]", got)
	}
}

func TestStreamRetriesABusyServer(t *testing.T) {
	s, link, app := runStream(t)
	busy := 2
	link.setView(func(since int64) (*mqtt.View, error) {
		if busy > 0 {
			busy--
			return nil, &busyError{msg: "429"}
		}
		return &mqtt.View{Rev: 30, Full: true}, nil
	})
	s.q.push(item{ev: &mqtt.Event{Type: mqtt.EventRelist, Rev: 30, Prev: 10}})
	expect(t, "relist after two refusals", app, link, []string{"resync 30"}, []string{"ACK 30"})
	if got := link.takeSinces(); len(got) != 4 { // [0] at connect, then three tries
		t.Errorf("relist attempts: got %v, want the first at connect and 3 tries", got)
	}
}

func TestJitteredStaysInItsRange(t *testing.T) {
	for _, d := range []time.Duration{0, 1, 200 * time.Millisecond, 30 * time.Second} {
		for range 1000 {
			if got := jittered(d); got < d/2 || got > d {
				t.Fatalf("jittered(%s): got %s, want within [%s, %s]", d, got, d/2, d)
			}
		}
	}
}

// viewServer answers the view path with fn and, for a server without it,
// the pod list and object GETs of the older relist.
func viewClient(t *testing.T, fn http.HandlerFunc) *Client {
	t.Helper()
	srv := httptest.NewServer(fn)
	t.Cleanup(srv.Close)
	return &Client{cfg: Config{APIServer: srv.URL}, node: "pi-1", http: srv.Client(),
		log: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

func TestFetchView(t *testing.T) {
	ctx := context.Background()
	var asked []string
	c := viewClient(t, func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.URL.RequestURI())
		switch r.URL.Query().Get("since") {
		case "5":
			w.Write([]byte(`{"rev":9,"since":5,"full":false,"changes":[]}`))
		case "6":
			w.Header().Set("Retry-After", "3")
			http.Error(w, "too many", http.StatusTooManyRequests)
		case "7":
			w.Write([]byte(`{"rev":9,"since":6,"full":false,"changes":[]}`))
		}
	})
	if v, err := c.fetchView(ctx, 5); err != nil || v.Rev != 9 || v.Since != 5 {
		t.Errorf("since 5: got %+v, %v; want the changes since 5 at 9", v, err)
	}
	var busy *busyError
	if _, err := c.fetchView(ctx, 6); !errors.As(err, &busy) || busy.retryAfter != 3*time.Second {
		t.Errorf("429: got %v, want a busyError with Retry-After 3s", err)
	}
	if _, err := c.fetchView(ctx, 7); err == nil {
		t.Error("an answer for another since: got no error, want one")
	}
	if want := "/v1-bramble/nodes/pi-1/view?since=5"; asked[0] != want {
		t.Errorf("request: got %s, want %s", asked[0], want)
	}
}

func TestFetchViewFromAnOlderServer(t *testing.T) {
	pod := `{"metadata":{"name":"web","namespace":"default","resourceVersion":"8"},"spec":{"volumes":[{"name":"c","configMap":{"name":"conf"}}]}}`
	conf := `{"metadata":{"name":"conf","namespace":"default","resourceVersion":"9"}}`
	c := viewClient(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v1/pods":
			json.NewEncoder(w).Encode(map[string]any{"metadata": map[string]string{"resourceVersion": "8"}, "items": []json.RawMessage{json.RawMessage(pod)}})
		case "/api/v1/namespaces/default/configmaps/conf":
			w.Write([]byte(conf))
		default:
			http.NotFound(w, r)
		}
	})
	v, err := c.fetchView(context.Background(), 3)
	if err != nil || !v.Full || v.Rev != 8 || len(v.Changes) != 2 {
		t.Fatalf("got %+v, %v; want the whole view at 8 from a list and a GET", v, err)
	}
}
