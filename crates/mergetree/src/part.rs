//! A data part on disk, and loading one back (with verification).
//!
//! # Part format, version 4
//!
//! One directory per part, named `<partition_id>_<min_block>_<max_block>_<level>`
//! (see [`crate::part_info`]). Inside:
//!
//! | file | content |
//! |---|---|
//! | `format_version.txt` | `4` (`1` before value transforms, `2` before aligned buffers, `3` before bit-packed integers; all still read) |
//! | `columns.txt` | `columns format version: 1`, `N columns:`, then `` `name` Type `` per line |
//! | `count.txt` | rows in the part, decimal |
//! | `<col>.bin` | compressed blocks ([`crate::compression`]) holding encoded granules ([`crate::encoding`]); `<col>` escaped as table names are (`%XX`) |
//! | `<col>.mrk` | per granule 24 bytes: u64 LE offset of its compressed block in `.bin`, u64 LE offset of the granule inside the decompressed block, u64 LE rows |
//! | `primary.idx` | u32 LE key-column count, then per primary-key element one encoded array of `granules + 1` values: the key of each granule's first row, then the key of the part's last row (NULL in an empty part) |
//! | `minmax.idx` | u32 LE column count, then per partition-key column one encoded array of 2 values: min and max over the part's non-NULL values (NULL when all are NULL; an empty part has those of a part it replaced, so its partition is known) |
//! | `ttl.txt` | tables with TTL only: ClickHouse's `ttl format version: 1` and the ranges of the part's TTL values ([`crate::ttl`]); optional |
//! | `checksums.txt` | one line per other file: `name<TAB>size<TAB>xxh3-64 hex`, and for a `.bin` file (since version 4) `<TAB>`its data's size uncompressed and unpacked; written last |
//!
//! All columns have the same granules (same row counts), so granule `i` of every column
//! is read from its `.mrk` entry `i`. A part is written under `tmp_insert_<name>` or
//! `tmp_merge_<name>`, every file fsynced, then renamed into place and the table
//! directory fsynced: a directory with a part name is always complete.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, BooleanArray};
use arrow::datatypes::{DataType, SchemaRef};
use granary_common::{Error, ErrorCode, Result, ResultExt};
use granary_types::ChType;
use xxhash_rust::xxh3::xxh3_64;

use crate::cache::mark_cache;
use crate::encoding::{decode_array, encode_array, ValueCoding};
use crate::keys::TableKeys;
use crate::part_info::PartInfo;
use crate::writer::{bin_file_name, mark_file_name, PartLayout, COMPACT_DATA_FILE, COMPACT_MARKS_FILE};

pub const PART_FORMAT_VERSION: u32 = 4;
/// Oldest format version this server reads (version 1 has no value transforms, version 2
/// no aligned buffers, version 3 no bit-packed integers).
pub const OLDEST_READABLE_PART_FORMAT_VERSION: u32 = 1;
pub const MARK_LEN: usize = 24;
pub const CHECKSUMS_FILE: &str = "checksums.txt";

/// Where granule `i` of a column starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark {
    pub block_offset: u64,
    pub offset_in_block: u64,
    pub rows: u64,
}

/// Where a column's marks are, to load them again after the mark cache let them go.
#[derive(Debug, Clone)]
struct MarkFile {
    name: String,
    hash: u64,
}

/// An active (or outdated but still read) part, with its indexes in memory; its marks
/// are in the mark cache (see `cache.rs`).
#[derive(Debug)]
pub struct Part {
    /// Process-unique id (uncompressed-cache keys).
    pub id: u64,
    pub info: PartInfo,
    pub dir: PathBuf,
    pub rows: u64,
    pub bytes_on_disk: u64,
    pub layout: PartLayout,
    /// Per table column, its `.mrk` file (the same `data.mrk` for all in a compact part).
    mark_files: Vec<MarkFile>,
    /// Row number of the first row of each granule, plus the total at the end.
    pub granule_starts: Vec<u64>,
    /// Primary-key values: `granules + 1` entries per key element.
    pub primary: Vec<ArrayRef>,
    /// Min and max of each partition-key column.
    pub minmax: Vec<ArrayRef>,
    /// Set when the part is replaced (merge, truncate): its directory is removed when the
    /// last query holding it lets go, so a reader never loses files under it.
    remove_on_drop: AtomicBool,
    sizes: std::sync::OnceLock<PartSizes>,
    /// The part's `ttl.txt` (`crate::ttl`); `None` when it has none.
    pub ttl: Option<crate::ttl::TtlInfos>,
    /// The lightweight-delete mask (`_row_exists`, one value per row, false: deleted),
    /// when a `DELETE FROM` wrote one into the part ([`crate::lightweight_delete`]).
    pub row_exists: Option<BooleanArray>,
    /// The bytes of its data-skipping index files (`skp_idx_<name>.idx`), by file name.
    pub skip_index_files: std::collections::HashMap<String, Arc<Vec<u8>>>,
    /// Those decoded, by index name, as reads first need them (`None`: not usable).
    skip_index_cache: parking_lot::Mutex<std::collections::HashMap<String, Option<Arc<crate::skip_index::IndexData>>>>,
    /// The codec a TTL RECOMPRESS rule wrote the part with (`CODEC(ZSTD(3))`, its
    /// `default_compression_codec.txt`); `None`: the table's.
    pub recompressed: Option<String>,
}

impl Part {
    /// A part whose marks (per table column, per granule) were just written or read;
    /// they go to the mark cache, the part keeps where to find them again.
    pub fn new(
        info: PartInfo,
        dir: PathBuf,
        bytes_on_disk: u64,
        schema: &SchemaRef,
        layout: PartLayout,
        marks: Vec<Vec<Mark>>,
        primary: Vec<ArrayRef>,
        minmax: Vec<ArrayRef>,
    ) -> Part {
        let mut granule_starts = vec![0u64];
        if let Some(first) = marks.first() {
            for m in first {
                let last = granule_starts.last().copied().unwrap_or(0);
                granule_starts.push(last + m.rows);
            }
        }
        let rows = granule_starts.last().copied().unwrap_or(0);
        let id = crate::cache::next_part_id();
        let compact_hash = (layout == PartLayout::Compact).then(|| xxh3_64(&marks.iter().flat_map(|m| encode_marks(m)).collect::<Vec<u8>>()));
        let mut mark_files = Vec::with_capacity(marks.len());
        for (column, (field, marks)) in schema.fields().iter().zip(marks).enumerate() {
            let hash = compact_hash.unwrap_or_else(|| xxh3_64(&encode_marks(&marks)));
            mark_files.push(MarkFile { name: mark_file_name(layout, field.name()), hash });
            mark_cache().insert((id, column as u32, 0), marks.into());
        }
        Part { id, info, dir, rows, bytes_on_disk, layout, mark_files, granule_starts, primary, minmax, remove_on_drop: AtomicBool::new(false), sizes: Default::default(), ttl: None, row_exists: None, skip_index_files: Default::default(), skip_index_cache: Default::default(), recompressed: None }
    }

    /// The marks of table column `column`: from the mark cache, or read from the part's
    /// `.mrk` file (checked against the hash it was written with) and cached.
    pub fn marks(&self, column: usize) -> Result<Arc<[Mark]>> {
        let key = (self.id, column as u32, 0);
        if let Some(marks) = mark_cache().get(&key) {
            return Ok(marks);
        }
        let file = self.mark_files.get(column).ok_or_else(|| Error::new(ErrorCode::LOGICAL_ERROR, format!("part {} has no column {column}", self.name())))?;
        let path = self.dir.join(&file.name);
        let bytes = fs::read(&path).with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot read {}", path.display()))?;
        let actual = xxh3_64(&bytes);
        if actual != file.hash {
            return Err(Error::new(
                ErrorCode::CHECKSUM_DOESNT_MATCH,
                format!("Checksum doesn't match in {}: expected {:016x}, computed {actual:016x}", path.display(), file.hash),
            ));
        }
        // A compact part's data.mrk holds every column's marks, column after column.
        let bytes = match self.layout {
            PartLayout::Wide => &bytes[..],
            PartLayout::Compact => bytes.get(column * self.granules() * MARK_LEN..(column + 1) * self.granules() * MARK_LEN).unwrap_or_default(),
        };
        let marks = parse_marks(bytes)
            .filter(|m| m.len() == self.granules() && m.iter().zip(self.granule_starts.windows(2)).all(|(m, w)| m.rows == w[1] - w[0]))
            .ok_or_else(|| Error::new(ErrorCode::CORRUPTED_DATA, format!("Marks in {} do not match the part's granules", path.display())))?;
        let marks: Arc<[Mark]> = marks.into();
        mark_cache().insert(key, marks.clone());
        Ok(marks)
    }

    /// `index` of this part, decoded once; `None` when the part has no usable file of it
    /// (written before the index existed, cleared, or damaged: a read then keeps every
    /// granule, as ClickHouse does).
    pub fn skip_index(&self, index: &crate::skip_index::SkipIndex) -> Option<Arc<crate::skip_index::IndexData>> {
        let mut cache = self.skip_index_cache.lock();
        if let Some(data) = cache.get(&index.meta.name) {
            return data.clone();
        }
        let data = self.skip_index_files.get(&crate::skip_index::file_name(&index.meta.name)).and_then(|bytes| match index.decode(bytes) {
            Ok(data) => data.filter(|d| d.granules() == self.granules().div_ceil(index.granularity)).map(Arc::new),
            Err(e) => {
                tracing::warn!("cannot read index {} of part {}: {e}", index.meta.name, self.name());
                None
            }
        });
        cache.insert(index.meta.name.clone(), data.clone());
        data
    }

    /// The file holding the blocks of table column `column` named `name`.
    pub fn bin_path(&self, name: &str) -> PathBuf {
        self.dir.join(bin_file_name(self.layout, name))
    }

    /// Rows not deleted by a lightweight delete: what reads see.
    pub fn existing_rows(&self) -> u64 {
        self.row_exists.as_ref().map_or(self.rows, |m| m.true_count() as u64)
    }

    /// The rows of `granules` a lightweight delete left, or None when it left them all.
    pub fn existing_in(&self, granules: std::ops::Range<usize>) -> Option<BooleanArray> {
        let mask = self.row_exists.as_ref()?;
        let start = self.granule_starts[granules.start] as usize;
        let slice = mask.slice(start, self.granule_starts[granules.end] as usize - start);
        (slice.false_count() > 0).then_some(slice)
    }

    pub fn granules(&self) -> usize {
        self.granule_starts.len().saturating_sub(1)
    }

    pub fn name(&self) -> String {
        self.info.name()
    }

    pub fn mark_for_removal(&self) {
        self.remove_on_drop.store(true, Ordering::SeqCst);
    }

    /// Loads and verifies the part in `dir`: every file listed in `checksums.txt` must
    /// exist with the recorded size, the small files (index, marks, counts) with their
    /// hash, and the files the table needs must be listed. Column data is not read here
    /// (start-up time must not grow with the table): its blocks are checksummed and
    /// verified on every read, and `CHECK TABLE` hashes whole files.
    pub fn load(dir: &Path, info: PartInfo, schema: &SchemaRef, keys: &TableKeys) -> Result<Part> {
        let broken = |detail: String| Error::new(ErrorCode::CORRUPTED_DATA, format!("Part {} is broken: {detail}", dir.display()));
        let (mut listed, bytes_on_disk) = verify_files(dir, false)?;
        let mut file = |name: &str| listed.remove(name).ok_or_else(|| broken(format!("{name} is missing from {CHECKSUMS_FILE}")));
        let version = String::from_utf8_lossy(&file("format_version.txt")?).trim().to_string();
        if !version.parse::<u32>().is_ok_and(|v| (OLDEST_READABLE_PART_FORMAT_VERSION..=PART_FORMAT_VERSION).contains(&v)) {
            return Err(Error::new(
                ErrorCode::NOT_IMPLEMENTED,
                format!(
                    "Part {} has format version {version}; this server reads versions {OLDEST_READABLE_PART_FORMAT_VERSION} to {PART_FORMAT_VERSION}",
                    dir.display()
                ),
            ));
        }
        let columns = String::from_utf8_lossy(&file("columns.txt")?).to_string();
        let masked = columns != columns_txt(schema);
        if masked && columns != columns_txt(&crate::lightweight_delete::with_row_exists(schema)) {
            return Err(broken("its columns differ from the table's (ALTER is not supported yet)".into()));
        }
        let count: u64 = String::from_utf8_lossy(&file("count.txt")?).trim().parse().map_err(|_| broken("bad count.txt".into()))?;
        let layout = if listed.contains_key(COMPACT_MARKS_FILE) { PartLayout::Compact } else { PartLayout::Wide };
        let mut file = |name: &str| listed.remove(name).ok_or_else(|| broken(format!("{name} is missing from {CHECKSUMS_FILE}")));
        let mut marks = Vec::with_capacity(schema.fields().len());
        match layout {
            PartLayout::Wide => {
                for field in schema.fields() {
                    file(&bin_file_name(layout, field.name()))?;
                    let bytes = file(&mark_file_name(layout, field.name()))?;
                    marks.push(parse_marks(&bytes).ok_or_else(|| broken(format!("bad marks of column {}", field.name())))?);
                }
            }
            PartLayout::Compact => {
                file(COMPACT_DATA_FILE)?;
                let all = parse_marks(&file(COMPACT_MARKS_FILE)?).ok_or_else(|| broken(format!("bad {COMPACT_MARKS_FILE}")))?;
                let columns = schema.fields().len().max(1);
                if all.len() % columns != 0 {
                    return Err(broken(format!("{COMPACT_MARKS_FILE} does not hold the same number of marks for each of the {columns} columns")));
                }
                match all.len() / columns {
                    // An empty part: no granules.
                    0 => marks.extend(schema.fields().iter().map(|_| Vec::new())),
                    per_column => marks.extend(all.chunks(per_column).map(<[Mark]>::to_vec)),
                }
            }
        }
        let granules = marks.first().map(Vec::len).unwrap_or(0);
        if marks.iter().any(|m| m.len() != granules || m.iter().zip(&marks[0]).any(|(a, b)| a.rows != b.rows)) {
            return Err(broken("columns have different granules".into()));
        }
        let primary_types: Vec<DataType> = keys.primary().iter().map(|k| k.data_type.clone()).collect();
        let primary = decode_arrays(&file("primary.idx")?, &primary_types).map_err(|e| broken(format!("primary.idx: {e}")))?;
        if primary.iter().any(|a| a.len() != granules + 1) {
            return Err(broken("primary.idx does not have one entry per granule".into()));
        }
        let minmax_types: Vec<DataType> = keys.partition_columns.iter().map(|&i| schema.field(i).data_type().clone()).collect();
        let minmax = decode_arrays(&file("minmax.idx")?, &minmax_types).map_err(|e| broken(format!("minmax.idx: {e}")))?;
        let mut part = Part::new(info, dir.to_path_buf(), bytes_on_disk, schema, layout, marks, primary, minmax);
        if let Some(text) = listed.remove(crate::ttl::TTL_FILE) {
            part.ttl = Some(crate::ttl::TtlInfos::parse(&String::from_utf8_lossy(&text)).map_err(|e| broken(e.to_string()))?);
        }
        if let Some(text) = listed.remove(crate::ttl::CODEC_FILE) {
            part.recompressed = Some(String::from_utf8_lossy(&text).trim().to_string());
        }
        if part.rows != count {
            return Err(broken(format!("count.txt says {count} rows, marks say {}", part.rows)));
        }
        if masked {
            part.row_exists = Some(crate::lightweight_delete::load_mask(&part, &mut listed).map_err(|e| broken(e.to_string()))?);
        }
        part.skip_index_files = listed.into_iter().filter(|(name, _)| name.starts_with(crate::skip_index::FILE_PREFIX)).map(|(name, bytes)| (name, Arc::new(bytes))).collect();
        Ok(part)
    }
}

/// Checks every file listed in `checksums.txt` (size, and xxh3 of the small files) and
/// returns the small files' bytes (a `.bin` file's entry is empty) and the part's total
/// size. `.bin` files are hashed (streaming) only with `hash_column_data`, for `CHECK
/// TABLE`: at load that would read the whole table, and every compressed block carries
/// its own checksum that each read verifies anyway.
pub fn verify_files(dir: &Path, hash_column_data: bool) -> Result<(std::collections::HashMap<String, Vec<u8>>, u64)> {
    let broken = |detail: String| Error::new(ErrorCode::CORRUPTED_DATA, format!("Part {} is broken: {detail}", dir.display()));
    let checksums_text = read_text(&dir.join(CHECKSUMS_FILE))?;
    let mut listed = std::collections::HashMap::new();
    let mut bytes_on_disk = checksums_text.len() as u64;
    for line in checksums_text.lines().filter(|l| !l.is_empty()) {
        let mut it = line.split('\t');
        let (Some(name), Some(size), Some(hash)) = (it.next(), it.next(), it.next()) else {
            return Err(broken(format!("bad line in {CHECKSUMS_FILE}: {line}")));
        };
        let size: u64 = size.parse().map_err(|_| broken(format!("bad size in {CHECKSUMS_FILE}: {line}")))?;
        let path = dir.join(name);
        let actual_size = fs::metadata(&path).map_err(|e| broken(format!("cannot read {name}: {e}")))?.len();
        if actual_size != size {
            return Err(broken(format!("file {name} has {actual_size} bytes, expected {size}")));
        }
        // Column data is hashed streaming (it can be large); the small files are kept
        // in memory to be parsed by the caller.
        let (actual, bytes) = if name.ends_with(".bin") {
            if !hash_column_data {
                bytes_on_disk += size;
                listed.insert(name.to_string(), Vec::new());
                continue;
            }
            (hash_file(&path).map_err(|e| broken(format!("cannot read {name}: {e}")))?, Vec::new())
        } else {
            let bytes = fs::read(&path).map_err(|e| broken(format!("cannot read {name}: {e}")))?;
            (xxh3_64(&bytes), bytes)
        };
        let actual = format!("{actual:016x}");
        if actual != hash {
            return Err(Error::new(
                ErrorCode::CHECKSUM_DOESNT_MATCH,
                format!("Part {} is broken: checksum of {name} doesn't match: expected {hash}, computed {actual}", dir.display()),
            ));
        }
        bytes_on_disk += size;
        listed.insert(name.to_string(), bytes);
    }
    Ok((listed, bytes_on_disk))
}

/// Sizes of a part's files as `system.parts` reports them.
#[derive(Debug, Clone, Default)]
pub struct PartSizes {
    pub files: u64,
    /// Per `.bin` and `.mrk` file: its size, and its data's size uncompressed and
    /// unpacked (the size again for marks).
    pub column_files: std::collections::HashMap<String, (u64, u64)>,
    pub data_compressed_bytes: u64,
    pub data_uncompressed_bytes: u64,
    pub marks_bytes: u64,
    pub primary_key_size: u64,
}

impl Part {
    /// File sizes from `checksums.txt`, and the uncompressed size of column data from the
    /// headers of the compressed blocks (one small read per block; cached per part).
    pub fn sizes(&self) -> Result<PartSizes> {
        if let Some(s) = self.sizes.get() {
            return Ok(s.clone());
        }
        let text = read_text(&self.dir.join(CHECKSUMS_FILE))?;
        let mut s = PartSizes { files: 1, ..Default::default() };
        for line in text.lines().filter(|l| !l.is_empty()) {
            let mut it = line.split('\t');
            let (Some(name), Some(size)) = (it.next(), it.next().and_then(|v| v.parse::<u64>().ok())) else { continue };
            s.files += 1;
            if name.ends_with(".bin") {
                s.data_compressed_bytes += size;
                // Since format 4 the size unpacked is listed; older parts have no packed
                // values, so their blocks' uncompressed sizes are it.
                let unpacked = match it.nth(1).and_then(|v| v.parse::<u64>().ok()) {
                    Some(unpacked) => unpacked,
                    None => uncompressed_size(&self.dir.join(name), size)?,
                };
                s.data_uncompressed_bytes += unpacked;
                s.column_files.insert(name.to_string(), (size, unpacked));
            } else if name.ends_with(".mrk") {
                s.marks_bytes += size;
                s.column_files.insert(name.to_string(), (size, size));
            } else if name == "primary.idx" {
                s.primary_key_size = size;
            }
        }
        let _ = self.sizes.set(s.clone());
        Ok(s)
    }
}

/// Sum of the uncompressed sizes of the blocks of a `.bin` file (headers only).
fn uncompressed_size(path: &Path, len: u64) -> Result<u64> {
    use std::os::unix::fs::FileExt;
    use crate::compression::BLOCK_HEADER_LEN;
    let file = fs::File::open(path).with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot open {}", path.display()))?;
    let (mut pos, mut total) = (0u64, 0u64);
    let mut header = [0u8; BLOCK_HEADER_LEN];
    while pos < len {
        file.read_exact_at(&mut header, pos).with_code(ErrorCode::CANNOT_READ_ALL_DATA, || format!("Cannot read {}", path.display()))?;
        let payload = u32::from_le_bytes([header[9], header[10], header[11], header[12]]) as u64;
        total += u32::from_le_bytes([header[13], header[14], header[15], header[16]]) as u64;
        pos += BLOCK_HEADER_LEN as u64 + payload;
    }
    Ok(total)
}

impl Drop for Part {
    fn drop(&mut self) {
        if self.remove_on_drop.load(Ordering::SeqCst) {
            if let Err(e) = fs::remove_dir_all(&self.dir) {
                tracing::warn!("cannot remove outdated part {}: {e}", self.dir.display());
            }
        }
    }
}

/// The `columns.txt` of the part in `dir`, as written.
pub fn read_columns(dir: &Path) -> Result<String> {
    let path = dir.join("columns.txt");
    fs::read_to_string(&path).with_code(ErrorCode::CANNOT_OPEN_FILE, || format!("Cannot read {}", path.display()))
}

/// The (name, type) lines of a `columns.txt`.
pub fn parse_columns_txt(text: &str) -> Result<Vec<(String, granary_types::ChType)>> {
    let bad = || Error::new(ErrorCode::CORRUPTED_DATA, format!("Bad columns.txt: {text:?}"));
    let mut lines = text.lines();
    let (Some("columns format version: 1"), Some(count)) = (lines.next(), lines.next()) else { return Err(bad()) };
    let count: usize = count.strip_suffix(" columns:").and_then(|c| c.parse().ok()).ok_or_else(bad)?;
    let mut columns = Vec::with_capacity(count);
    for line in lines {
        let (name, type_name) = line.strip_prefix('`').and_then(|l| l.split_once("` ")).ok_or_else(bad)?;
        columns.push((name.to_string(), granary_types::ChType::parse(type_name)?));
    }
    if columns.len() != count {
        return Err(bad());
    }
    Ok(columns)
}

/// `columns.txt` as ClickHouse writes it.
pub fn columns_txt(schema: &SchemaRef) -> String {
    let mut out = format!("columns format version: 1\n{} columns:\n", schema.fields().len());
    for field in schema.fields() {
        out.push_str(&format!("`{}` {}\n", field.name(), ChType::from_field(field)));
    }
    out
}

pub fn encode_arrays(arrays: &[ArrayRef]) -> Result<Vec<u8>> {
    let mut out = (arrays.len() as u32).to_le_bytes().to_vec();
    for a in arrays {
        encode_array(a.as_ref(), &mut out, ValueCoding::Plain)?;
    }
    Ok(out)
}

fn decode_arrays(bytes: &[u8], types: &[DataType]) -> Result<Vec<ArrayRef>> {
    let n = bytes.get(0..4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize);
    if n != Some(types.len()) {
        return Err(Error::new(ErrorCode::CORRUPTED_DATA, format!("expected {} arrays", types.len())));
    }
    let mut pos = 4;
    types.iter().map(|t| decode_array(bytes, &mut pos, t)).collect()
}

pub fn encode_marks(marks: &[Mark]) -> Vec<u8> {
    let mut out = Vec::with_capacity(marks.len() * MARK_LEN);
    for m in marks {
        out.extend_from_slice(&m.block_offset.to_le_bytes());
        out.extend_from_slice(&m.offset_in_block.to_le_bytes());
        out.extend_from_slice(&m.rows.to_le_bytes());
    }
    out
}

pub(crate) fn parse_marks(bytes: &[u8]) -> Option<Vec<Mark>> {
    if !bytes.len().is_multiple_of(MARK_LEN) {
        return None;
    }
    let u = |b: &[u8]| b.try_into().ok().map(u64::from_le_bytes);
    bytes
        .chunks_exact(MARK_LEN)
        .map(|c| Some(Mark { block_offset: u(&c[0..8])?, offset_in_block: u(&c[8..16])?, rows: u(&c[16..24])? }))
        .collect()
}

fn hash_file(path: &Path) -> std::io::Result<u64> {
    use std::io::Read;
    let mut file = fs::File::open(path)?;
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            return Ok(hasher.digest());
        }
        hasher.update(&buf[..n]);
    }
}

pub(crate) fn read_text(path: &Path) -> Result<String> {
    fs::read_to_string(path).with_code(ErrorCode::CORRUPTED_DATA, || format!("Cannot read {}", path.display()))
}
