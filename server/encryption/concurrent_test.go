package encryption

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/bramble-edge/bramble/datastore"
)

// TestReencryptLosesNoConcurrentWrite rotates keys while writers keep
// updating the Secrets: every Secret must end with its writer's last value,
// under the new key.
func TestReencryptLosesNoConcurrentWrite(t *testing.T) {
	ctx := context.Background()
	s, raw := newStore(t)
	const secrets, writes = 20, 30
	keys := make([]string, secrets)
	for i := range keys {
		keys[i] = fmt.Sprintf("%sdefault/s%02d", SecretsPrefix, i)
		if _, err := s.Create(ctx, keys[i], []byte("0")); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for _, k := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 1; n <= writes; {
				kv, err := s.Get(ctx, k)
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := s.Update(ctx, k, []byte(strconv.Itoa(n)), kv.ModRevision); err == nil {
					n++
				} else if !errors.Is(err, datastore.ErrConflict) {
					t.Error(err)
					return
				}
			}
		}()
	}
	if _, err := NewAdmin(s).RotateKeys(ctx, false); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for _, k := range keys {
		kv, err := s.Get(ctx, k)
		if err != nil || string(kv.Value) != strconv.Itoa(writes) {
			t.Fatalf("%s: got %v, %v, want %d", k, kv, err, writes)
		}
	}
	assertStoredUnder(t, raw, keys, s.Keys().Current())
}
