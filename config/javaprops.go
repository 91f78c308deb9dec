package config

import (
	"fmt"
	"strings"
)

// SplitJavaProps takes Java-style -Dkey=value arguments (as start scripts
// pass JVM system properties: -Dtls.server.mode=enforcing) out of args,
// before flag parsing, and returns the remaining arguments and the
// properties. "-Dkey" alone sets key to "" (Java: the empty string). An
// argument "-D" without a key is an error.
func SplitJavaProps(args []string) (rest []string, props map[string]string, err error) {
	props = map[string]string{}
	for i, a := range args {
		if a == "--" {
			return append(rest, args[i:]...), props, nil
		}
		if !strings.HasPrefix(a, "-D") {
			rest = append(rest, a)
			continue
		}
		k, v, _ := strings.Cut(strings.TrimPrefix(a, "-D"), "=")
		if k = strings.TrimSpace(k); k == "" {
			return nil, nil, fmt.Errorf("%w: %q names no property (use -Dkey=value)", ErrInvalid, a)
		}
		props[k] = v
	}
	return rest, props, nil
}
