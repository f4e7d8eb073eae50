package report

import (
	"io/fs"
	"os"
)

// ReportMode is the widest mode a report or baseline file gets: readable by
// all, writable by its owner only, whatever the umask.
const ReportMode fs.FileMode = 0o644

// Create opens path for a report (created, or truncated), with mode
// ReportMode at most: an existing file with a wider mode is narrowed.
func Create(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, ReportMode)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&^ReportMode != 0 {
		if err := f.Chmod(st.Mode().Perm() & ReportMode); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}
