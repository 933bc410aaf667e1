package provisioner

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// The real thing for the integration tests: a nats-server on a free loopback
// port with JetStream in a temporary store, and `bin/mesh-provisioner serve`
// as child processes, every one stopped in t.Cleanup. Waits are polls with a
// bound, never bare sleeps.

// natsServerBin is NATS_SERVER_BIN, else nats-server on the PATH, else Debian's.
func natsServerBin(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("NATS_SERVER_BIN"); p != "" {
		return p
	}
	if p, err := exec.LookPath("nats-server"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/sbin/nats-server"); err == nil {
		return "/usr/sbin/nats-server"
	}
	t.Fatal("nats-server was not found (NATS_SERVER_BIN, PATH, /usr/sbin/nats-server): install it (apt-get install nats-server) or set NATS_SERVER_BIN")
	return ""
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// eventually polls check every interval until it returns nil, failing the
// test with its last error after timeout.
func eventually(t *testing.T, timeout, interval time.Duration, what string, check func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v: %v", what, timeout, err)
		}
		time.Sleep(interval)
	}
}

type natsServer struct {
	t    *testing.T
	bin  string
	conf string
	log  string
	URL  string
	cmd  *exec.Cmd
	done chan struct{}
}

// startNATS starts a nats-server with JetStream; extra is appended to its config.
func startNATS(t *testing.T, extra string) *natsServer {
	t.Helper()
	return startNATSInDomain(t, "", extra)
}

// startNATSInDomain starts a nats-server whose JetStream is in domain ("":
// none, as startNATS); extra is appended to its config.
func startNATSInDomain(t *testing.T, domain, extra string) *natsServer {
	t.Helper()
	dir := t.TempDir()
	port := freePort(t)
	conf := filepath.Join(dir, "nats.conf")
	js := fmt.Sprintf("store_dir: %q", filepath.Join(dir, "store"))
	if domain != "" {
		js += fmt.Sprintf(", domain: %q", domain)
	}
	text := fmt.Sprintf("listen: \"127.0.0.1:%d\"\njetstream { %s }\n%s\n", port, js, extra)
	if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	s := &natsServer{t: t, bin: natsServerBin(t), conf: conf, log: filepath.Join(dir, "nats.log"), URL: fmt.Sprintf("nats://127.0.0.1:%d", port)}
	s.start()
	t.Cleanup(s.stop)
	return s
}

func (s *natsServer) start() {
	s.t.Helper()
	logf, err := os.OpenFile(s.log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		s.t.Fatal(err)
	}
	s.cmd = exec.Command(s.bin, "-c", s.conf)
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("start %s: %v", s.bin, err)
	}
	done := make(chan struct{})
	s.done = done
	go func() { _ = s.cmd.Wait(); logf.Close(); close(done) }()
	addr := strings.TrimPrefix(s.URL, "nats://")
	eventually(s.t, 15*time.Second, 25*time.Millisecond, "nats-server accepts connections", func() error {
		select {
		case <-done:
			return errors.New("it exited; log: " + s.tail())
		default:
		}
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
		}
		return err
	})
}

func (s *natsServer) tail() string {
	b, _ := os.ReadFile(s.log)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

func (s *natsServer) stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// restart stops the server and starts it again on the same port and store.
func (s *natsServer) restart() {
	s.stop()
	s.start()
}

// connect is a client connection that reconnects forever.
func (s *natsServer) connect(t *testing.T, opts ...nats.Option) *nats.Conn {
	t.Helper()
	all := append([]nats.Option{nats.MaxReconnects(-1), nats.ReconnectWait(100 * time.Millisecond), nats.Timeout(2 * time.Second)}, opts...)
	nc, err := nats.Connect(s.URL, all...)
	if err != nil {
		t.Fatalf("connect to %s: %v", s.URL, err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// bin is the service's command line, built by `npm run build`.
func serviceBin(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "dist", "bundle", "index.js")); err != nil {
		t.Fatalf("the service is not built (%v): run `npm ci` or `npm run build` in %s first", err, root)
	}
	return filepath.Join(root, "bin", "mesh-provisioner")
}

// service is one `mesh-provisioner serve` child process.
type service struct {
	t    *testing.T
	cmd  *exec.Cmd
	done chan struct{}
	mu   sync.Mutex
	log  []string
}

// startService runs `serve --server url` with a short seat ttl and max wait, and args.
func startService(t *testing.T, url string, args ...string) *service {
	t.Helper()
	full := append([]string{serviceBin(t), "serve", "--server", url, "--seat-ttl", "2s", "--max-wait", "1s", "--bucket-max-bytes", "64MiB"}, args...)
	cmd := exec.Command("node", full...)
	cmd.Dir = ".."
	env := []string{"LOG_FORMAT=json"}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "NATS_") && !strings.HasPrefix(kv, "LOG_") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the service: %v", err)
	}
	s := &service{t: t, cmd: cmd, done: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			s.mu.Lock()
			s.log = append(s.log, sc.Text())
			s.mu.Unlock()
		}
		_ = cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() { s.stop(syscall.SIGKILL) })
	return s
}

func (s *service) tail() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.log[max(0, len(s.log)-15):], "\n")
}

func (s *service) exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// stop sends sig and waits for the exit (SIGKILL after 10 s).
func (s *service) stop(sig syscall.Signal) {
	if s.exited() {
		return
	}
	_ = s.cmd.Process.Signal(sig)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// waitHolder waits until some instance answers the verb and holds the seat
// (only the holder publishes the feed), and returns the holder's instance.
func waitHolder(t *testing.T, c *Client, services ...*service) string {
	t.Helper()
	var holder string
	eventually(t, 30*time.Second, 100*time.Millisecond, "the service answers and holds the seat", func() error {
		for _, s := range services {
			if s.exited() {
				t.Fatalf("the service exited: %s", s.tail())
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		if _, err := c.Get(ctx, Request{What: Needs, Limit: 1}); err != nil {
			return err
		}
		list, err := c.Instances(ctx, 300*time.Millisecond)
		if err != nil {
			return err
		}
		for _, i := range list {
			if i.IsHolder && i.Holder != nil {
				holder = i.Holder.Instance
				return nil
			}
		}
		return fmt.Errorf("%d instances, none holds the seat", len(list))
	})
	return holder
}
