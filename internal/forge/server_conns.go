package forge

import (
	"net"
	"net/http"
	"sync"
)

// newConns tracks the server's connections that have not sent a request
// yet. A client's transport may dial a connection it then never uses (the
// request it dialed for went out on an idle one); http.Server.Shutdown
// waits five seconds before it counts such a connection idle, so Close
// closes them first.
type newConns struct {
	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

// track is an http.Server ConnState hook.
func (n *newConns) track(c net.Conn, st http.ConnState) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if st == http.StateNew {
		if n.conns == nil {
			n.conns = map[net.Conn]struct{}{}
		}
		n.conns[c] = struct{}{}
		return
	}
	delete(n.conns, c)
}

// closeAll closes the connections that never sent a request.
func (n *newConns) closeAll() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for c := range n.conns {
		_ = c.Close()
	}
	n.conns = nil
}
