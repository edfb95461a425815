//! What the `exemplar` command shares with the project's other programs: the file system side
//! of run records. `exemplar runs check|summary` and `cargo xtask build` (which writes the
//! page's Living Evidence summary) read and check `runs/` with [`check_run_folder`], so they
//! cannot disagree about which files a folder holds; `exemplar record` writes with
//! [`write_record`]. The `exemplar` library itself does no I/O.

use exemplar::runs::{self, CheckReport};
use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// The largest run record read; a record is a few kilobytes.
pub const MAX_RECORD_BYTES: u64 = 1024 * 1024;

/// The `*.json` entries of a runs folder, sorted by name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunFolder {
    /// The record files that could be read, as (file name, text), for `runs::check`.
    pub files: Vec<(String, String)>,
    /// One message per entry that is not a readable record file, naming it.
    pub unreadable: Vec<String>,
}

/// A folder's records checked as `exemplar runs check` does.
#[derive(Debug, Clone, PartialEq)]
pub struct FolderCheck {
    /// How many `*.json` entries the folder holds (read or not).
    pub entries: usize,
    /// `runs::check` of the readable files, with one error per unreadable entry first.
    pub report: CheckReport,
}

/// Reads and checks every `*.json` entry of `dir`. An entry that is not a readable record
/// file (a symlink, a folder, a FIFO, too large, not UTF-8) is an error in the report, and
/// the other files are still checked. A missing folder holds no records; `Err` only when the
/// folder itself cannot be listed.
pub fn check_run_folder(dir: &Path) -> Result<FolderCheck, String> {
    let folder = read_run_folder(dir)?;
    let mut report = runs::check(&folder.files);
    let entries = folder.files.len() + folder.unreadable.len();
    report.errors.splice(0..0, folder.unreadable);
    Ok(FolderCheck { entries, report })
}

/// Every `*.json` entry in `dir`, sorted by name: read when it is a regular file (never
/// through a symlink, never a FIFO or device, at most [`MAX_RECORD_BYTES`], UTF-8), named in
/// `unreadable` otherwise. A missing folder holds no records.
pub fn read_run_folder(dir: &Path) -> Result<RunFolder, String> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(RunFolder::default()),
        Err(e) => return Err(format!("cannot read {}: {e}", dir.display())),
    };
    let mut folder = RunFolder::default();
    let mut paths = Vec::new();
    for entry in entries {
        match entry {
            Ok(entry) => paths.push(entry.path()),
            Err(e) => folder
                .unreadable
                .push(format!("cannot list an entry of {}: {e}", dir.display())),
        }
    }
    paths.retain(|p| p.extension().is_some_and(|x| x == "json"));
    paths.sort();
    for path in paths {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        match read_record_file(&path) {
            Ok(text) => folder.files.push((name, text)),
            Err(why) => folder.unreadable.push(format!("{name}: {why}")),
        }
    }
    Ok(folder)
}

/// Why a folder entry is not read as a record.
fn read_record_file(path: &Path) -> Result<String, String> {
    let meta = std::fs::symlink_metadata(path).map_err(|e| format!("cannot read it: {e}"))?;
    kind_problem(&meta)?;
    let file = open_no_follow(path).map_err(|e| format!("cannot read it: {e}"))?;
    // The entry may have been swapped since it was looked at: check what was opened.
    kind_problem(
        &file
            .metadata()
            .map_err(|e| format!("cannot read it: {e}"))?,
    )?;
    let mut bytes = Vec::new();
    file.take(MAX_RECORD_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read it: {e}"))?;
    if bytes.len() as u64 > MAX_RECORD_BYTES {
        return Err(too_large(bytes.len() as u64));
    }
    String::from_utf8(bytes).map_err(|e| format!("not UTF-8 text ({e})"))
}

/// A regular file of at most [`MAX_RECORD_BYTES`], or what it is instead.
fn kind_problem(meta: &Metadata) -> Result<(), String> {
    let kind = meta.file_type();
    if kind.is_symlink() {
        return Err("a symbolic link; a record must be a regular file in the folder".into());
    }
    if !kind.is_file() {
        let what = if kind.is_dir() {
            "a folder"
        } else {
            "a FIFO, socket or device"
        };
        return Err(format!("not a regular file ({what})"));
    }
    if meta.len() > MAX_RECORD_BYTES {
        return Err(too_large(meta.len()));
    }
    Ok(())
}

fn too_large(bytes: u64) -> String {
    format!("too large ({bytes} bytes or more; a record is at most {MAX_RECORD_BYTES} bytes)")
}

/// Opens for reading without following a final symlink and without blocking on a FIFO.
#[cfg(unix)]
fn open_no_follow(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open_no_follow(path: &Path) -> io::Result<File> {
    File::open(path)
}

/// Why a record was not written.
#[derive(Debug)]
pub enum WriteError {
    /// A record of that pair and condition exists and `force` was not given.
    Exists(PathBuf),
    /// The record's path is a symbolic link: never written through, never replaced.
    Symlink(PathBuf),
    /// The record's path is a folder, FIFO or device.
    NotAFile(PathBuf),
    Io(PathBuf, io::Error),
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteError::Exists(p) => write!(
                f,
                "{} exists; a pair holds one run per condition (use --force to replace it)",
                p.display()
            ),
            WriteError::Symlink(p) => write!(
                f,
                "{} is a symbolic link; records are never written through one (remove it)",
                p.display()
            ),
            WriteError::NotAFile(p) => {
                write!(f, "{} exists and is not a regular file", p.display())
            }
            WriteError::Io(p, e) => write!(f, "cannot write {}: {e}", p.display()),
        }
    }
}

impl std::error::Error for WriteError {}

/// Writes `text` as `dir/name`, creating `dir`. A new record is created only if nothing is
/// there (`create_new`: an existing file or a symlink, even a dangling one, is refused).
/// With `force`, an existing regular file is replaced atomically: a temporary file in `dir`,
/// then a rename, which replaces the directory entry itself and follows no symlink. A
/// symlink at `dir/name` is refused either way.
pub fn write_record(
    dir: &Path,
    name: &str,
    text: &str,
    force: bool,
) -> Result<PathBuf, WriteError> {
    let path = dir.join(name);
    std::fs::create_dir_all(dir).map_err(|e| WriteError::Io(dir.to_path_buf(), e))?;
    match std::fs::symlink_metadata(&path) {
        Ok(meta) if meta.file_type().is_symlink() => return Err(WriteError::Symlink(path)),
        Ok(meta) if !meta.is_file() => return Err(WriteError::NotAFile(path)),
        Ok(_) if !force => return Err(WriteError::Exists(path)),
        Ok(_) => replace_atomically(dir, name, text.as_bytes())?,
        Err(e) if e.kind() == io::ErrorKind::NotFound => create_new(&path, text.as_bytes())?,
        Err(e) => return Err(WriteError::Io(path, e)),
    }
    Ok(path)
}

/// Creates `path` only if no entry has that name; a half-written file is removed.
fn create_new(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    let mut file = match OpenOptions::new().write(true).create_new(true).open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            // Created since it was looked at; say what it is.
            return Err(match std::fs::symlink_metadata(path) {
                Ok(m) if m.file_type().is_symlink() => WriteError::Symlink(path.to_path_buf()),
                _ => WriteError::Exists(path.to_path_buf()),
            });
        }
        Err(e) => return Err(WriteError::Io(path.to_path_buf(), e)),
    };
    file.write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(|e| {
            let _ = std::fs::remove_file(path);
            WriteError::Io(path.to_path_buf(), e)
        })
}

/// Replaces `dir/name` by a new file holding `bytes`: written in full under a temporary
/// name in `dir` (not `*.json`, so `runs check` never sees it), then renamed over the entry.
/// `rename` replaces the entry itself; were it a symlink, the link is replaced and its
/// target left alone.
fn replace_atomically(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), WriteError> {
    let path = dir.join(name);
    let temp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    create_new(&temp, bytes)?;
    std::fs::rename(&temp, &path).map_err(|e| {
        let _ = std::fs::remove_file(&temp);
        WriteError::Io(path, e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh folder for one test.
    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("exemplar-cli-lib-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_missing_folder_holds_no_records() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("no-such-folder");
        assert_eq!(read_run_folder(&dir), Ok(RunFolder::default()));
    }

    #[test]
    fn only_json_files_are_read_in_name_order() {
        let dir = scratch("run-files");
        std::fs::write(dir.join("b.json"), "{}").unwrap();
        std::fs::write(dir.join("a.json"), "[]").unwrap();
        std::fs::write(dir.join("README.md"), "# not a record").unwrap();
        let folder = read_run_folder(&dir).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(
            folder.files,
            [
                ("a.json".into(), "[]".into()),
                ("b.json".into(), "{}".into())
            ]
        );
        assert!(folder.unreadable.is_empty());
    }

    #[test]
    fn unreadable_entries_are_named_and_the_rest_are_read() {
        let dir = scratch("unreadable");
        std::fs::create_dir(dir.join("a-folder.json")).unwrap();
        std::fs::write(dir.join("b.json"), b"\xff").unwrap();
        std::fs::write(
            dir.join("c.json"),
            vec![b' '; MAX_RECORD_BYTES as usize + 1],
        )
        .unwrap();
        std::fs::write(dir.join("d.json"), "{}").unwrap();
        let folder = read_run_folder(&dir).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(folder.files, [("d.json".into(), "{}".into())]);
        assert_eq!(folder.unreadable.len(), 3, "{:?}", folder.unreadable);
        assert!(folder.unreadable[0].starts_with("a-folder.json: not a regular file (a folder)"));
        assert!(folder.unreadable[1].starts_with("b.json: not UTF-8 text"));
        assert_eq!(
            folder.unreadable[2],
            "c.json: too large (1048577 bytes or more; a record is at most 1048576 bytes)"
        );
    }

    #[test]
    fn a_record_is_created_once_and_replaced_only_with_force() {
        let dir = scratch("write");
        let runs = dir.join("runs");
        let path = write_record(&runs, "p1-pdf.json", "one", false).unwrap();
        assert_eq!(path, runs.join("p1-pdf.json"));
        let again = write_record(&runs, "p1-pdf.json", "two", false).unwrap_err();
        assert!(matches!(again, WriteError::Exists(_)), "{again}");
        write_record(&runs, "p1-pdf.json", "three", true).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "three");
        let names: Vec<_> = std::fs::read_dir(&runs)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["p1-pdf.json"], "no temporary file is left");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_refused_and_a_rename_replaces_the_link_not_its_target() {
        use std::os::unix::fs::symlink;
        let dir = scratch("symlink");
        let target = dir.join("target.txt");
        std::fs::write(&target, "keep me").unwrap();
        symlink(&target, dir.join("p1-pdf.json")).unwrap();
        symlink(dir.join("nowhere.txt"), dir.join("p2-pdf.json")).unwrap();
        for (name, force) in [
            ("p1-pdf.json", false),
            ("p1-pdf.json", true),
            ("p2-pdf.json", false),
            ("p2-pdf.json", true),
        ] {
            let e = write_record(&dir, name, "x", force).unwrap_err();
            assert!(matches!(e, WriteError::Symlink(_)), "{e}");
        }
        assert!(!dir.join("nowhere.txt").exists());
        // The --force path's last step, should a symlink appear after the check.
        replace_atomically(&dir, "p1-pdf.json", b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me");
        let meta = std::fs::symlink_metadata(dir.join("p1-pdf.json")).unwrap();
        assert!(meta.file_type().is_file());
        assert_eq!(
            std::fs::read_to_string(dir.join("p1-pdf.json")).unwrap(),
            "new"
        );
        // And create_new, the other path, refuses a dangling symlink instead of following it.
        let e = create_new(&dir.join("p2-pdf.json"), b"x").unwrap_err();
        assert!(matches!(e, WriteError::Symlink(_)), "{e}");
        assert!(!dir.join("nowhere.txt").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_never_opened() {
        let dir = scratch("fifo");
        let fifo = dir.join("a.json");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        // Even opened directly (as if swapped in after the look), the open does not block.
        let file = open_no_follow(&fifo).unwrap();
        assert!(kind_problem(&file.metadata().unwrap()).is_err());
        let folder = read_run_folder(&dir).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(
            folder.unreadable,
            ["a.json: not a regular file (a FIFO, socket or device)"]
        );
    }
}
