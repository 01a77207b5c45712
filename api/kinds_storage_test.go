package api

import (
	"testing"
	"time"

	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestDefaultStorageClassIsTheNewestMarked(t *testing.T) {
	at := func(name string, sec int, def bool) *storagev1.StorageClass {
		sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(time.Unix(int64(sec), 0))}}
		if def {
			sc.Annotations = map[string]string{AnnotationDefaultStorageClass: "true"}
		}
		return sc
	}
	if got := DefaultStorageClass([]*storagev1.StorageClass{at("a", 1, true), at("b", 3, false), at("c", 2, true)}); got == nil || got.Name != "c" {
		t.Fatalf("got %v, want c (the newest marked default)", got)
	}
	if got := DefaultStorageClass([]*storagev1.StorageClass{at("a", 1, false)}); got != nil {
		t.Fatalf("got %v, want none when no class is marked", got.Name)
	}
}
