package config

import (
	"fmt"
	"maps"
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

// JavaOptEnv is the environment variable Java's start scripts (runserver.sh,
// tools.sh) extend with JVM options; its -D properties are read too.
const JavaOptEnv = "JAVA_OPT"

// JavaProps returns SplitJavaProps(args) with, under them, the -Dkey=value
// words of javaOpt (the JAVA_OPT environment variable: `export
// JAVA_OPT=-Dtls.enable=true` as with Java's scripts); a -D on the command
// line wins. Other words of javaOpt (-Xmx1g, -server) are ignored.
func JavaProps(args []string, javaOpt string) (rest []string, props map[string]string, err error) {
	rest, cmd, err := SplitJavaProps(args)
	if err != nil {
		return nil, nil, err
	}
	props = map[string]string{}
	for _, w := range strings.Fields(javaOpt) {
		if k, v, _ := strings.Cut(strings.TrimPrefix(w, "-D"), "="); strings.HasPrefix(w, "-D") && k != "" {
			props[k] = v
		}
	}
	maps.Copy(props, cmd)
	return rest, props, nil
}
