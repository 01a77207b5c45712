package client

import (
	"crypto/tls"
	"fmt"
	"net/url"

	paho "github.com/eclipse/paho.mqtt.golang"
)

// restTLS is the TLS configuration of the REST client: tlsCfg, verifying
// the API server against Roots when set.
func (cfg *Config) restTLS(tlsCfg *tls.Config) (*tls.Config, error) {
	out := tlsCfg.Clone()
	if cfg.Roots == nil {
		return out, nil
	}
	u, err := url.Parse(cfg.APIServer)
	if err != nil {
		return nil, fmt.Errorf("mqtt client: API server URL %q: %w", cfg.APIServer, err)
	}
	return cfg.Roots.Use(out, u.Hostname()), nil
}

// verifyBrokerWithRoots makes every connection attempt verify the broker
// it dials against the roots held then (Config.Roots).
func (c *Client) verifyBrokerWithRoots(o *paho.ClientOptions) {
	if c.cfg.Roots == nil {
		return
	}
	o.SetConnectionAttemptHandler(func(broker *url.URL, tlsCfg *tls.Config) *tls.Config {
		return c.cfg.Roots.Use(tlsCfg.Clone(), broker.Hostname())
	})
}
