package provisioner

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// The example README.md starts with is the body of examples/first's main,
// and it runs against a real service.
func TestTheReadmeExampleRunsAgainstTheService(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)```go\n(.*?)```").FindSubmatch(readme)
	if block == nil {
		t.Fatal("README.md has no ```go block")
	}
	src, err := os.ReadFile("examples/first/main.go")
	if err != nil {
		t.Fatal(err)
	}
	body := regexp.MustCompile("(?s)func main\\(\\) \\{\n(.*)\n\\}\n$").FindSubmatch(src)
	if body == nil {
		t.Fatal("examples/first/main.go has no main")
	}
	unindent := strings.ReplaceAll("\n"+string(body[1]), "\n\t", "\n")[1:]
	if strings.TrimSpace(unindent) != strings.TrimSpace(string(block[1])) {
		t.Fatalf("README.md's example is not examples/first's main:\n%s", unindent)
	}

	srv := startNATS(t, "")
	svc := startService(t, srv.URL)
	waitHolder(t, NewClient(srv.connect(t)), svc)
	cmd := exec.Command("go", "run", "./examples/first")
	cmd.Env = append(os.Environ(), "NATS_URL="+srv.URL)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run ./examples/first: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 14 || !strings.HasPrefix(lines[13], "0 needs at revision ") {
		t.Fatalf("want the 13 kinds, then the needs' view; got:\n%s", out)
	}
}
