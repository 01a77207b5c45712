package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Agent is the registry of an agent's process-wide metrics (the agent's
// node collector adds pods, temperatures and disk writes when gathered).
var Agent = prometheus.NewRegistry()

var (
	AgentMQTTConnects = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "bramble_agent_mqtt_connects_total",
		Help: "Times the agent's MQTT client connected to the broker (the first connect and every reconnect).",
	})
	AgentMQTTConnectionLost = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "bramble_agent_mqtt_connection_lost_total",
		Help: "Times the agent's MQTT connection was lost.",
	})
	AgentImagePulls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bramble_agent_image_pulls_total",
		Help: "Image pulls by result (ok, error).",
	}, []string{"result"})
	AgentContainerStarts = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "bramble_agent_container_starts_total",
		Help: "Containers the agent saw start running (a new container id).",
	})
)

func init() {
	Agent.MustRegister(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), collectors.NewGoCollector(),
		AgentMQTTConnects, AgentMQTTConnectionLost, AgentImagePulls, AgentContainerStarts)
}
