package api

import "testing"

// BenchmarkStoredCopyPod: the copy the cache takes from the registry
// against the decode it replaces (a running pod, 2.4 KB).
func BenchmarkStoredCopyPod(b *testing.B) {
	r, data := res(b, "Pod"), podRevisions(b)[2]
	obj, err := DecodeStored(r, data, 1)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("copy", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, ok := StoredCopy(r, obj); !ok {
				b.Fatal("declined")
			}
		}
	})
	b.Run("copy-over-bound", func(b *testing.B) { // a status write: metadata and spec held
		prev, prevSecs, err := DecodeStoredReusing(r, podRevisions(b)[1], 1, nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for range b.N {
			if _, _, ok := StoredCopyReusing(r, obj, data, prev, prevSecs); !ok {
				b.Fatal("declined")
			}
		}
	})
	b.Run("deepcopy", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			obj.DeepCopyObject()
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := DecodeStored(r, data, 1); err != nil {
				b.Fatal(err)
			}
		}
	})
}
