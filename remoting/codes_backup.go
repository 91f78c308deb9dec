package remoting

// Request codes of this project's own lie in 42001-42199, a range no Java
// RequestCode uses (Java's run to 3010, then 200050-200151): 42001-42099
// are the Controller's membership codes (controller/wire), 42100-42199
// its backup codes.
const (
	// ControllerBackup asks the Controller leader for a consistent backup
	// of the replicated state (mqadmin backupController): the body of the
	// answer is the backup file (internal/backupfile).
	ControllerBackup int32 = 42101
)
