package remoting

// Request codes of this project's own, in a private range no Java
// RequestCode uses (Java's run to 200,151; none lies between 990,000 and
// 999,999). 990,100-990,199 are the Controller's backup codes.
const (
	// ControllerBackup asks the Controller leader for a consistent backup
	// of the replicated state (mqadmin backupController): the body of the
	// answer is the backup file (internal/backupfile).
	ControllerBackup int32 = 990101
)
