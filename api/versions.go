package api

import (
	"fmt"
	"reflect"

	convert "k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"
)

// A kind may be served in a version (or group) other than the one its
// objects are stored in: autoscaling/v1 HorizontalPodAutoscalers are stored
// as autoscaling/v2 ones, events.k8s.io/v1 Events as core/v1 Events. Such
// a Resource names its Storage and converts at the storage boundary:
// DecodeStored hands out the served version, ToStorage turns it back before
// it is written. Everything in between (defaulting, validation, patches,
// server-side apply, Tables, watches) sees the served version only.

// conversion converts one served version to and from its storage version.
type conversion struct {
	toStorage   func(Object) (Object, error)
	fromStorage func(Object) (Object, error)
	// statusAnnotations carry the part of the storage version's status
	// this version has no field for; an update of the main resource
	// keeps them as stored, as it keeps the status.
	statusAnnotations []string
}

// toStorageByType finds the conversion of a served version's Go type.
var toStorageByType = map[reflect.Type]func(Object) (Object, error){}

// registerVersion serves r as another version of storage, converting with
// to and from; k are r's own rules (validation of r's fields).
func registerVersion(r, storage *Resource, conv conversion, k Rules) {
	r.Storage, r.conv = storage, &conv
	toStorageByType[reflect.TypeOf(r.newObject())] = conv.toStorage
	register(r, k)
	addSchemeConversion(r.newObject(), storage.newObject(), conv.toStorage)
	addSchemeConversion(storage.newObject(), r.newObject(), conv.fromStorage)
}

// addSchemeConversion lets the Scheme convert between the two versions
// too: server-side apply converts objects to the version each field
// manager applied in.
func addSchemeConversion(from, to Object, f func(Object) (Object, error)) {
	addLater(func(s *runtime.Scheme) {
		err := s.AddConversionFunc(from, to, func(a, b any, _ convert.Scope) error {
			out, err := f(a.(Object))
			if err != nil {
				return err
			}
			reflect.ValueOf(b).Elem().Set(reflect.ValueOf(out).Elem())
			return nil
		})
		if err != nil {
			panic(fmt.Sprintf("api: conversion %T -> %T: %v", from, to, err))
		}
	})
}

// StorageVersion reports whether r's objects are stored as r's own kind
// (so one list, watch or informer of r covers its collection), rather
// than converted to another Resource's.
func (r *Resource) StorageVersion() bool { return r.Storage == nil }

// keepStatus keeps, on an update of the main resource, the annotations
// that carry the stored status (the status fields are kept already).
func (r *Resource) keepStatus(obj, old Object) {
	if r.conv == nil || len(r.conv.statusAnnotations) == 0 {
		return
	}
	a, was := obj.GetAnnotations(), old.GetAnnotations()
	for _, key := range r.conv.statusAnnotations {
		v, ok := was[key]
		switch {
		case ok && a == nil:
			a = map[string]string{key: v}
		case ok:
			a[key] = v
		default:
			delete(a, key)
		}
	}
	obj.SetAnnotations(a)
}

// ToStorage converts obj to the kind it is stored as, defaulted as that
// kind; an object of a storage version is returned as it is.
func ToStorage(obj Object) (Object, error) {
	conv, ok := toStorageByType[reflect.TypeOf(obj)]
	if !ok {
		return obj, nil
	}
	out, err := conv(obj)
	if err != nil {
		return nil, fmt.Errorf("convert %T to its storage version: %w", obj, err)
	}
	Default(out)
	return out, nil
}

// fromStorage converts a stored object of r.Storage's kind to r's.
func (r *Resource) fromStorage(obj Object) (Object, error) {
	if r.conv == nil {
		return obj, nil
	}
	out, err := r.conv.fromStorage(obj)
	if err != nil {
		return nil, fmt.Errorf("convert %s to %s: %w", r.Storage.APIVersion(), r.APIVersion(), err)
	}
	Default(out)
	return out, nil
}

// Convert returns obj, an object of r's kind or of the kind r is stored
// as, as an object of r's kind (for Tables that print one version's
// columns for both).
func (r *Resource) Convert(obj Object) (Object, error) {
	if reflect.TypeOf(obj) == reflect.TypeOf(r.newObject()) {
		return obj, nil
	}
	if r.Storage != nil {
		return r.fromStorage(obj)
	}
	stored, err := ToStorage(obj)
	if err != nil || reflect.TypeOf(stored) != reflect.TypeOf(r.newObject()) {
		return nil, fmt.Errorf("convert %T to %s %s: not a version of it", obj, r.APIVersion(), r.Kind)
	}
	return stored, nil
}
