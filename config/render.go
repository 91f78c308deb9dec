package config

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Render returns the GET_NAMESRV_CONFIG body: "key=value\n" lines sorted by
// key, covering every NamesrvConfig and NettyServerConfig key, our extras,
// and every property of the -c file (typed values win over raw ones), with
// any *Password value masked (a TLS key password in the -c file). As in
// Java, values are not escaped.
func (c *NamesrvConfig) Render() []byte { return formatLines(redactSecrets(c.renderMap()), false) }

// ControllerProperties returns the GET_CONTROLLER_CONFIG body of the embedded
// controller.
func (c *NamesrvConfig) ControllerProperties() []byte { return c.Controller.Render() }

// Render returns the GET_CONTROLLER_CONFIG body. listenPort shows the self
// peer's port of controllerDLegerPeers, as DLedger overwrites it in Java.
func (cc *ControllerConfig) Render() []byte {
	return formatLines(redactSecrets(cc.renderMap()), false)
}

func (c *NamesrvConfig) renderMap() map[string]string {
	out := maps.Clone(c.raw)
	renderInto(out, bindings(c))
	return out
}

func (cc *ControllerConfig) renderMap() map[string]string {
	out := maps.Clone(cc.raw)
	renderInto(out, bindings(cc))
	if _, port, err := net.SplitHostPort(cc.SelfRemotingAddr()); err == nil {
		out["listenPort"] = port
	}
	out["jraftConfig"] = JraftConfigValue
	return out
}

// JraftConfigValue is what GET_CONTROLLER_CONFIG shows for jraftConfig.
// Java's ControllerConfig always holds a JraftConfig object and
// MixAll.object2Properties prints its Object.toString ("class@hash"), so
// every Java answer has the key; ours has no JRaft settings and shows the
// class name with a zero hash. It is never read back: Java's
// properties2Object skips a setter taking an object, and ours ignores it.
const JraftConfigValue = "org.apache.rocketmq.common.JraftConfig@0"

// Persist writes the config (Render's keys, values escaped so they read back
// unchanged) to configStorePath atomically: temp file, fsync, rename, fsync
// of the directory. The previous file is kept as <file>.bak, as Java's
// MixAll.string2File does.
func (c *NamesrvConfig) Persist() error {
	return writeAtomic(c.ConfigStorePath, formatLines(c.renderMap(), true))
}

// Persist writes the controller config to its configStorePath atomically,
// keeping the previous file as <file>.bak. The embedded controller (and a
// standalone one whose configStorePath is not its -c file) writes only the
// keys set by updates (see loadOwnFile); otherwise the whole config.
func (cc *ControllerConfig) Persist() error {
	if cc.ownFile {
		return writeAtomic(cc.ConfigStorePath, cc.ownFileBody())
	}
	return writeAtomic(cc.ConfigStorePath, formatLines(cc.renderMap(), true))
}

func formatLines(m map[string]string, escape bool) []byte {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		if escape {
			k, v = escapeKey(k), escapeValue(v)
		}
		b.WriteString(k + "=" + v + "\n")
	}
	return []byte(b.String())
}

// escapeValue escapes what Java's Properties.load would otherwise alter.
func escapeValue(v string) string {
	var b strings.Builder
	for i, r := range v {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\f':
			b.WriteString(`\f`)
		case i == 0 && r == ' ':
			b.WriteString(`\ `)
		case r < 0x20:
			b.WriteString(`\u` + fmt.Sprintf("%04x", r))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// PropertyLine formats one "key=value\n" line of a properties text with the
// escaping java.util.Properties.load reads back unchanged (the bodies of
// UPDATE_NAMESRV_CONFIG and UPDATE_CONTROLLER_CONFIG, and persisted files).
func PropertyLine(key, value string) string {
	return escapeKey(key) + "=" + escapeValue(value) + "\n"
}

// escapeKey additionally escapes separators and comment markers.
func escapeKey(k string) string {
	s := strings.ReplaceAll(escapeValue(k), " ", `\ `)
	s = strings.NewReplacer("=", `\=`, ":", `\:`).Replace(s)
	if strings.HasPrefix(s, "#") || strings.HasPrefix(s, "!") {
		s = `\` + s
	}
	return s
}

func writeAtomic(path string, data []byte) error {
	if path == "" {
		return fmt.Errorf("%w: configStorePath is empty", ErrPersist)
	}
	if err := writeAtomicFile(path, data); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrPersist, path, err)
	}
	return nil
}

func writeAtomicFile(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := createTempFor(path)
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if err := writeSync(tmp, data); err != nil {
		return err
	}
	if err := keepBackup(path); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	return syncDir(dir)
}

// keepBackup copies the current file at path (if any) to <path>.bak,
// itself atomically. The copy is never more readable than the file it
// copies (it holds the same secrets: a tls.server.keyPassword): a new
// .bak gets the file's mode, an existing one keeps what of its own mode
// the file also has (Java's MixAll.string2File gives a new .bak 0666 less
// the umask whatever the file's mode).
func keepBackup(path string) error {
	prev, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	bak := path + ".bak"
	tmp, err := createTempFor(bak)
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := narrowMode(tmp, path); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := writeSync(tmp, prev); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), bak)
}

func writeSync(f *os.File, data []byte) error {
	_, werr := f.Write(data)
	serr := f.Sync()
	cerr := f.Close()
	for _, err := range []error{werr, serr, cerr} {
		if err != nil {
			return err
		}
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
