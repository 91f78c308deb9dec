// Package watchedfile reads the small files a server re-reads while it
// runs (the ACL accounts file, nsAddrFile, TLS certificates and keys):
// only regular files, opened without blocking (a named pipe put in a
// file's place would otherwise block the open until a writer comes) and
// read up to a bound, so that whatever is put at the path costs at most
// that bound. A Stamp tells whether a file changed since it was last
// looked at (inode, size, modification time, mode, change time), for
// acl, nsaddr, tlsconf and internal/certreload alike.
package watchedfile
