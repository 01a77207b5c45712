package broker

// SessionOpen reports whether the broker holds an open session for client
// id; tests wait on it to know a client's packets were all processed.
func (b *Broker) SessionOpen(id string) bool {
	cl, ok := b.server.Clients.Get(id)
	return ok && !cl.Closed()
}
