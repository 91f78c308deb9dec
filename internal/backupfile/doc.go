// Package backupfile is the file form of a Controller backup: the data of
// a Raft snapshot the leader took, its index and term, and a SHA-256 of
// everything before it. mqadmin writes it (backupController) and the
// controller binary's restore reads it; raftstore takes and restores the
// snapshot. It depends on nothing of Raft, so the default build has it.
package backupfile
