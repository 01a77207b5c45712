package main

// Modules the packages being written in parallel rely on; this keeps
// `go mod tidy` from dropping them before their importers land.
import (
	_ "github.com/eclipse/paho.mqtt.golang"
	_ "github.com/mattn/go-sqlite3"
	_ "github.com/mochi-mqtt/server/v2"
	_ "gopkg.in/evanphx/json-patch.v4"
	_ "k8s.io/api/autoscaling/v1"
	_ "k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	_ "k8s.io/apimachinery/pkg/util/managedfields"
	_ "k8s.io/apimachinery/pkg/util/strategicpatch"
	_ "sigs.k8s.io/json"
	_ "sigs.k8s.io/yaml"
)
