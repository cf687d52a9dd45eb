package upstream

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/transport"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	"golang.org/x/crypto/ssh"

	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/upstream/upstreamtest"
)

// sshGitServer serves the bare repositories under root over SSH
// (git-upload-pack only) to one client key.
type sshGitServer struct {
	addr   string
	hostPK ssh.PublicKey
	client ssh.Signer
}

func newSSHGitServer(t *testing.T, root string) *sshGitServer {
	t.Helper()
	_, hostPriv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	hostSigner, err := ssh.NewSignerFromKey(hostPriv)
	if err != nil {
		t.Fatal(err)
	}
	_, clientPriv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	clientSigner, err := ssh.NewSignerFromKey(clientPriv)
	if err != nil {
		t.Fatal(err)
	}
	allowed := string(clientSigner.PublicKey().Marshal())
	cfg := &ssh.ServerConfig{PublicKeyCallback: func(_ ssh.ConnMetadata, k ssh.PublicKey) (*ssh.Permissions, error) {
		if string(k.Marshal()) != allowed {
			return nil, errKeyRefused
		}
		return &ssh.Permissions{}, nil
	}}
	cfg.AddHostKey(hostSigner)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() { defer wg.Done(); serveSSH(c, cfg, root) }()
		}
	}()
	return &sshGitServer{addr: ln.Addr().String(), hostPK: hostSigner.PublicKey(), client: clientSigner}
}

var errKeyRefused = errors.New("key refused")

func serveSSH(c net.Conn, cfg *ssh.ServerConfig, root string) {
	defer c.Close()
	_, chans, reqs, err := ssh.NewServerConn(c, cfg)
	if err != nil {
		return
	}
	go ssh.DiscardRequests(reqs)
	for nc := range chans {
		if nc.ChannelType() != "session" {
			_ = nc.Reject(ssh.UnknownChannelType, "session only")
			continue
		}
		ch, chReqs, err := nc.Accept()
		if err != nil {
			return
		}
		go func() {
			defer ch.Close()
			for req := range chReqs {
				if req.Type != "exec" || len(req.Payload) < 4 {
					_ = req.Reply(false, nil)
					continue
				}
				cmdline := string(req.Payload[4:])
				name, arg, _ := strings.Cut(cmdline, " ")
				if name != "git-upload-pack" {
					_ = req.Reply(false, nil)
					continue
				}
				_ = req.Reply(true, nil)
				dir := filepath.Join(root, filepath.Clean("/"+strings.Trim(arg, "'")))
				cmd := exec.Command("git", "upload-pack", dir)
				cmd.Stdout, cmd.Stderr = ch, ch.Stderr()
				status := uint32(1)
				// stdin is copied apart: the client closes its side only
				// after the exit status, which cmd.Wait would wait for
				if in, err := cmd.StdinPipe(); err == nil && cmd.Start() == nil {
					go func() { _, _ = io.Copy(in, ch); in.Close() }()
					if cmd.Wait() == nil {
						status = 0
					}
				}
				b := make([]byte, 4)
				binary.BigEndian.PutUint32(b, status)
				_, _ = ch.SendRequest("exit-status", false, b)
				return
			}
		}()
	}
}

// TestOpenOverSSH fetches an upstream over ssh:// (a public key, the
// server's host key checked) and resolves its package tag.
func TestOpenOverSSH(t *testing.T) {
	r := upstreamtest.New(t)
	want := r.Release("app", "v1", map[string]string{"Kptfile": "kind: Kptfile\n", "cm.yaml": "a: 1\n"})
	root := t.TempDir()
	r.Git("clone", "-q", "--bare", r.Dir, filepath.Join(root, "org", "catalog.git"))
	srv := newSSHGitServer(t, root)

	store, err := gitstore.New(gitstore.Options{Dir: t.TempDir(), AllowLocalAndSSH: true,
		Auth: func(context.Context, string) (transport.AuthMethod, error) {
			return &gitssh.PublicKeys{User: "git", Signer: srv.client,
				HostKeyCallbackHelper: gitssh.HostKeyCallbackHelper{HostKeyCallback: ssh.FixedHostKey(srv.hostPK)}}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ctx := context.Background()
	repo, err := Open(ctx, store, "ssh://git@"+srv.addr+"/org/catalog.git")
	if err != nil {
		t.Fatal(err)
	}
	rev, err := repo.Resolve(ctx, "/app", "v1")
	if err != nil || rev.Commit.String() != want || rev.Ref != "app/v1" {
		t.Fatalf("Resolve = %+v %v, want app/v1 %s", rev, err, want)
	}
	files, err := repo.Files(ctx, rev.Commit, "app")
	if err != nil || string(files["cm.yaml"]) != "a: 1\n" {
		t.Fatalf("Files = %v %v", files, err)
	}
	if _, err := Open(ctx, store, "ssh://git@"+srv.addr+"/org/missing.git"); err == nil {
		t.Error("a missing repository over ssh was opened")
	}
}
