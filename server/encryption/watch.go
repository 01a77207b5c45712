package encryption

import (
	"context"

	"github.com/bramble-edge/bramble/datastore"
)

func (s *Store) Watch(ctx context.Context, prefix string, afterRev int64) (<-chan []datastore.Event, error) {
	if !s.mayHold(prefix) {
		return s.Store.Watch(ctx, prefix, afterRev)
	}
	wctx, cancel := context.WithCancel(ctx)
	in, err := s.Store.Watch(wctx, prefix, afterRev)
	if err != nil {
		cancel()
		return nil, err
	}
	return s.relay(wctx, cancel, in), nil
}

func (s *Store) WatchProgress(ctx context.Context, prefix string, afterRev int64, requests <-chan struct{}) (<-chan []datastore.Event, error) {
	if !s.mayHold(prefix) {
		return s.Store.WatchProgress(ctx, prefix, afterRev, requests)
	}
	wctx, cancel := context.WithCancel(ctx)
	in, err := s.Store.WatchProgress(wctx, prefix, afterRev, requests)
	if err != nil {
		cancel()
		return nil, err
	}
	return s.relay(wctx, cancel, in), nil
}

// relay passes in's batches on with Secret values decrypted. A value that
// fails to decrypt is logged and ends the watch (the reader relists and
// meets the error, which names the key id).
func (s *Store) relay(ctx context.Context, cancel context.CancelFunc, in <-chan []datastore.Event) <-chan []datastore.Event {
	out := make(chan []datastore.Event, cap(in))
	go func() {
		defer close(out)
		defer cancel()
		for batch := range in {
			plain, err := s.decryptBatch(batch)
			if err != nil {
				s.log.Error("watch: secret cannot be decrypted; ending the watch", "err", err)
				return
			}
			select {
			case out <- plain:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

// decryptBatch returns batch itself when no event carries ciphertext, a
// copy with decrypted values otherwise (batches may be shared).
func (s *Store) decryptBatch(batch []datastore.Event) ([]datastore.Event, error) {
	var out []datastore.Event
	for i, ev := range batch {
		kv, err := s.decryptKV(ev.KV)
		if err != nil {
			return nil, err
		}
		prev, err := s.decryptKV(ev.PrevKV)
		if err != nil {
			return nil, err
		}
		if kv == ev.KV && prev == ev.PrevKV {
			if out != nil {
				out[i] = ev
			}
			continue
		}
		if out == nil {
			out = make([]datastore.Event, len(batch))
			copy(out, batch[:i])
		}
		out[i] = datastore.Event{Type: ev.Type, Revision: ev.Revision, KV: kv, PrevKV: prev}
	}
	if out == nil {
		return batch, nil
	}
	return out, nil
}
