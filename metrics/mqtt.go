package metrics

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// BrokerStats are the embedded broker's counters at one moment.
type BrokerStats struct {
	ClientsConnected                  int64
	MessagesReceived, MessagesSent    int64
	BytesReceived, BytesSent          int64
	MessagesDropped, InflightDropped  int64
	Inflight, Subscriptions, Retained int64
}

// broker reads the running embedded broker's stats; nil with an external
// broker (mosquitto has its own $SYS metrics and exporter).
var broker atomic.Pointer[func() BrokerStats]

// SetBroker makes /metrics report stats, the embedded broker's counters;
// nil stops it.
func SetBroker(stats func() BrokerStats) {
	if stats == nil {
		broker.Store(nil)
		return
	}
	broker.Store(&stats)
}

// MQTTSlowClientsDropped counts clients the embedded broker disconnected
// for holding too many unacknowledged messages (its bounded queues).
var MQTTSlowClientsDropped = prometheus.NewCounter(prometheus.CounterOpts{
	Name: "bramble_mqtt_slow_clients_dropped_total",
	Help: "MQTT clients the embedded broker disconnected because they left too many QoS 1/2 messages unacknowledged.",
})

type brokerCollector struct{}

func desc(name, help string) *prometheus.Desc { return prometheus.NewDesc(name, help, nil, nil) }

var (
	mqttClients     = desc("bramble_mqtt_clients_connected", "MQTT clients connected to the embedded broker.")
	mqttMsgsIn      = desc("bramble_mqtt_messages_received_total", "PUBLISH messages the embedded broker received.")
	mqttMsgsOut     = desc("bramble_mqtt_messages_sent_total", "PUBLISH messages the embedded broker sent.")
	mqttBytesIn     = desc("bramble_mqtt_received_bytes_total", "Bytes the embedded broker received.")
	mqttBytesOut    = desc("bramble_mqtt_sent_bytes_total", "Bytes the embedded broker sent.")
	mqttDropped     = desc("bramble_mqtt_messages_dropped_total", "Messages the embedded broker dropped because a subscriber's queue was full.")
	mqttInflightDrp = desc("bramble_mqtt_inflight_dropped_total", "QoS 1/2 in-flight messages the embedded broker dropped (queue limit or expiry).")
	mqttInflight    = desc("bramble_mqtt_inflight_messages", "QoS 1/2 messages awaiting acknowledgement.")
	mqttSubs        = desc("bramble_mqtt_subscriptions", "Subscriptions on the embedded broker.")
	mqttRetained    = desc("bramble_mqtt_retained_messages", "Retained messages on the embedded broker.")
)

func (brokerCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{mqttClients, mqttMsgsIn, mqttMsgsOut, mqttBytesIn, mqttBytesOut,
		mqttDropped, mqttInflightDrp, mqttInflight, mqttSubs, mqttRetained} {
		ch <- d
	}
}

func (brokerCollector) Collect(ch chan<- prometheus.Metric) {
	fn := broker.Load()
	if fn == nil {
		return
	}
	s := (*fn)()
	gauge := func(d *prometheus.Desc, v int64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, float64(v))
	}
	counter := func(d *prometheus.Desc, v int64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v))
	}
	gauge(mqttClients, s.ClientsConnected)
	counter(mqttMsgsIn, s.MessagesReceived)
	counter(mqttMsgsOut, s.MessagesSent)
	counter(mqttBytesIn, s.BytesReceived)
	counter(mqttBytesOut, s.BytesSent)
	counter(mqttDropped, s.MessagesDropped)
	counter(mqttInflightDrp, s.InflightDropped)
	gauge(mqttInflight, s.Inflight)
	gauge(mqttSubs, s.Subscriptions)
	gauge(mqttRetained, s.Retained)
}
