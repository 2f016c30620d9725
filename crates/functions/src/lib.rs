//! # granary-functions: ClickHouse's functions on DataFusion
//!
//! Granary runs queries on DataFusion, but users call ClickHouse's functions, by
//! ClickHouse's names, and see ClickHouse's result *types* (they show up in `JSON`
//! `meta`, `TSVWithNamesAndTypes` and in how 64-bit integers are quoted). This crate
//! provides those functions as DataFusion scalar UDFs and UDAFs.
//!
//! ## API (for the query layer)
//! * [`register_all`] registers every function, alias and lowercase spelling into a
//!   [`SessionState`], replacing DataFusion built-ins with the same names (`count`,
//!   `sum`, `length`, `substring`, `now`, ...) where ClickHouse's semantics differ, and
//!   the higher-order (lambda) forms of [`lambda`].
//! * [`function_catalog`] lists what a session can call, for `system.functions`.
//! * [`is_case_insensitive`] tells the SQL front end which names to lowercase.
//! * [`cast_to_chtype`] builds `CAST(x AS T)` with ClickHouse's conversion rules.
//!
//! ## Module map
//! | module | what |
//! |---|---|
//! | [`args`] | argument-count/type checks with ClickHouse codes 42/43, type classes |
//! | [`func`] | the generic scalar UDF adapter: NULL rules, constant folding, types |
//! | [`literals`] | ClickHouse's smallest-fitting types for integer literals |
//! | `registry` | names, aliases, case-insensitivity, descriptions |
//! | [`tz`] | server/session time zone, DST rules, civil-date arithmetic |
//! | [`parse`] | ClickHouse text parsing of numbers, dates, decimals, booleans |
//! | [`format`] | ClickHouse text form of values (`toString`) |
//! | [`conversion`] | `toT`, `toTOrZero`, `toTOrNull`, `CAST`, `toTypeName`, ... |
//! | [`datetime`] | `now`, `today`, `toYear`.., `toStartOf*`, `add*`/`subtract*`, `dateDiff` |
//! | [`conditional`] | `if`, `multiIf`, `isNull`, `ifNull`, `nullIf`, `assumeNotNull`, ... |
//! | [`arithmetic`] | `plus`.., `intDiv`, `modulo`, `equals`.. with ClickHouse result types |
//! | [`string`] | `length`, `lower`, `concat`, `substring`, `replaceOne/All`, `trim*`, `reverse`, `splitBy*`, `hex`, ... |
//! | `text` | building String columns from bytes (invalid UTF-8 becomes U+FFFD once, at the end) |
//! | `search` | `position`, `locate`, `positionUTF8`, case-insensitive forms, `countSubstrings*`, `multiSearchAny`, `multiSearchFirstIndex`/`FirstPosition`/`AllPositions` (+UTF8/CaseInsensitive), `hasSubsequence` (+UTF8/CaseInsensitive) |
//! | `utf8` | `lowerUTF8`, `upperUTF8`, `substringUTF8`, `reverseUTF8` |
//! | `string_extra` | `space`, `firstLine`, `isValidUTF8`, `soundex`, `leftUTF8`/`rightUTF8`, `substringIndex`(`UTF8`) |
//! | `string_metrics` | `editDistance`(`UTF8`), `damerauLevenshteinDistance`, `byteHammingDistance`, `jaroSimilarity`, `jaroWinklerSimilarity`, `stringJaccardIndex`(`UTF8`) |
//! | `string_words` | `tokens`, `alphaTokens`, `ngrams`, `hasToken` (+`CaseInsensitive`/`OrNull`), `translateUTF8`, `initcapUTF8`, `overlayUTF8`, `encodeXMLComponent`/`decodeXMLComponent` |
//! | `key_value` | `extractKeyValuePairs` (`mapFromString`, `str_to_map`), `extractKeyValuePairsWithEscaping`: ClickHouse's key-value state machine |
//! | `ngram_similarity` | `ngramDistance`, `ngramSearch` (+`CaseInsensitive`, `UTF8`): ClickHouse's hashed n-gram counts |
//! | `html` | `decodeHTMLComponent` (HTML5 references, `html_entities`), `extractTextFromHTML` (ClickHouse's rules) |
//! | `query_normalize` | `normalizeQuery`(`KeepNames`), `normalizedQueryHash`(`KeepNames`) on a lexer with ClickHouse's token boundaries |
//! | `unicode_normalize` | `normalizeUTF8NFC`/`NFD`/`NFKC`/`NFKD` (ICU4X's normalizer) |
//! | `sqids` | `sqidEncode`, `sqidDecode` (Sqids' defaults and blocklist, as sqids-cpp) |
//! | `value_mapping` | `transform` (3 and 4 arguments), `clamp`, `widthBucket` |
//! | `vector_distance` | `L1Norm`, `L2Norm`, `L2SquaredNorm`, `LinfNorm`, `LpNorm`, `L1Distance`, `L2Distance`, `L2SquaredDistance`, `LinfDistance`, `LpDistance`, `cosineDistance`, `L1Normalize`..`LpNormalize` of arrays |
//! | `string_build` | `leftPad`/`rightPad` (+UTF8), `format`, `concatWithSeparator`, `arrayStringConcat` |
//! | `encoding` | `base64Encode`/`base64Decode`/`tryBase64Decode`, the same for base32 and base58, `unhex`, `unbin`, `char` |
//! | `julian` | `toModifiedJulianDay(OrNull)`, `fromModifiedJulianDay(OrNull)` |
//! | `printf` | `printf` (fmt's printf rules, piece by piece as ClickHouse) |
//! | `intervals` | `addInterval`/`subtractInterval`, `add`/`subtractTupleOfIntervals`, `toInterval`, `timeDiff`, `nowInBlock`(`64`) |
//! | `snowflake` | Snowflake ids and UUIDv7: `snowflakeIDToDateTime(64)`, `dateTime(64)ToSnowflakeID`, `generateSnowflakeID`, `generateUUIDv7`, `UUIDv7ToDateTime`, `dateTimeToUUIDv7` |
//! | `time_window` | `timeSlots`, `tumble`/`hop` and their `Start`/`End` forms |
//! | `tuple_arithmetic` | `tuplePlus`.. `tupleIntDivOrZero`, their `ByNumber` forms (and `tuplePositiveModuloByNumber`), `tupleNegate`, `dotProduct` (tuples and arrays), `tupleNames`, `tupleConcat`, `tupleHammingDistance`, `tupleToNameValuePairs`; norms and normalized tuples |
//! | `running` | `runningDifference`(`StartingWithFirstValue`), `neighbor`: block-local, like ClickHouse |
//! | `regexp` | `match`, `extract`, `extractAll`, `replaceRegexpOne/All`, `splitByRegexp` (RE2 syntax on the `regex` crate, compiled patterns cached) |
//! | [`array`] | `array`, `range`, `has`, `indexOf`, `indexOfAssumeSorted`, `emptyArray*`, array `length`/`empty` |
//! | `array_access` | `arrayElement` (`arr[i]`, `map[k]`), `arraySlice`, `arrayConcat`, `arrayReverse` |
//! | `array_aggregate` | `arrayCount`/`Exists`/`All`, `arraySum`, `arrayMin`/`Max`, `arrayUniq` |
//! | `array_reduce` | `arrayReduce('agg', arr, ...)`, `arrayReduceInRanges` over the aggregate registry (combinators included) |
//! | `array_sort` | `arraySort`, `arrayReverseSort`, `arrayDistinct` |
//! | `array_set` | `hasAll`/`hasAny`/`hasSubstr`, `arrayIntersect`, `arrayUnion`, `arraySymmetricDifference`, `arrayEnumerate`/`Uniq`/`Dense` |
//! | `array_build` | `arrayPushBack`.., `arrayPopBack`.., `arrayResize`, `arrayRotate*`, `arrayShift*`, `arrayCompact`, `arrayFlatten`, `arrayZip`, `arrayWithConstant`, `arrayCumSum`.., `arrayDifference`, `arrayProduct`, `arrayAvg`, `arrayDotProduct` |
//! | `array_metrics` | `arrayJaccardIndex`, `arrayLevenshteinDistance(Weighted)`, `arraySimilarity`, `arrayROCAUC` (`arrayAUC`), `arrayAUCPR` (`arrayPRAUC`), `arrayAutocorrelation`, `arrayNormalizedGini` |
//! | `array_ranked` | `arrayEnumerateUniqRanked`, `arrayEnumerateDenseRanked` |
//! | `array_shuffle` | `arrayShuffle`, `arrayPartialShuffle` (ClickHouse's seeded order), `arrayRandomSample` |
//! | `bits_more` | `bitRotateLeft/Right`, `bitSlice`, `bitTestAll/Any`, `bitPositionsToArray`, `bitmaskToArray/List`, `byteSwap`, `bitHammingDistance` |
//! | `integer_math` | `countDigits`, `intExp2`, `intExp10`, `isPrime`, `isProbablePrime`, `sqr`, `midpoint` |
//! | `bitmap_set` | ClickHouse's bitmap value (small set / Roaring) with its bytes and set operations |
//! | `group_bitmap` | `groupBitmap`, `groupBitmapAnd`/`Or`/`Xor` on `bitmap_set` |
//! | `bitmap` | `bitmapBuild`, `bitmapToArray`, `bitmapContains`, `bitmapAnd`.. and their `Cardinality` forms, `bitmapSubsetInRange`, `subBitmap`, `bitmapTransform`, ... |
//! | `array_reshape` | `arrayZipUnaligned`, `arrayShingles`, `arrayFlattenedLength`, `arrayRemove`, `arrayTopK`/`arrayBottomK`, `arrayTranspose`, `arrayExcept` |
//! | [`lambda`] | the lambda forms (`arrayCount(x -> .., arr)`, ..., `mapApply((k, v) -> .., m)`, ..., `arrayFold`) as DataFusion higher-order functions |
//! | `url` | `domain`, `protocol`, `path`, `port`, `queryString`, `cutWWW`, `extractURLParameter(s)`, `decode/encodeURLComponent`, `firstSignificantSubdomain`, `cutToFirstSignificantSubdomain*`, `URL(Path)Hierarchy`, `cutURLParameter`, ... (ClickHouse's non-RFC scanners) |
//! | `reinterpret` | `reinterpret(x, 'T')`, `reinterpretAs*`: ClickHouse's in-memory bytes read as another type |
//! | `math` | `sqrt`, `cbrt`, `exp*`, `log*` (`ln`), trigonometric/hyperbolic functions, `degrees`, `radians`, `sigmoid`, `pow` (`power`), `atan2`, `hypot`: Float64, nullable only for nullable arguments; `roundAge`, `roundDuration`, `roundToExp2` |
//! | `multi_match` | `multiMatchAny`, `multiMatchAnyIndex`, `multiMatchAllIndices` (a `RegexSet`; indices in Hyperscan's report order) |
//! | `parse_datetime` | `parseDateTime`(`64`) and the `InJodaSyntax` forms, each with `OrNull`/`OrZero` (MySQL-style and Joda formats, ClickHouse's parsers) |
//! | `readable` | `formatReadableSize`, `formatReadableDecimalSize`, `formatReadableQuantity`, `formatReadableTimeDelta` |
//! | `durations` | `parseTimeDelta`, `parseISO8601Duration`, `parseReadableSize`(`OrNull`/`OrZero`) |
//! | `ip` | `IPv4StringToNum`, `IPv6NumToString`, ... over `UInt32` / `FixedString(16)` addresses |
//! | `json` | `JSONHas`, `JSONLength`, `JSONType`, `JSONExtract*` (and `CaseInsensitive` forms), `isValidJSON`: a validating scanner walks each document, no DOM |
//! | [`system`] | `version`, `currentDatabase`, `hostName`, `uptime`, `rand*`, UUIDs |
//! | `random` | `randUniform`, `randNormal`, ... (distributions on `rand`'s generator), `randConstant`, `randomString`, `randomFixedString`, `randomPrintableASCII`, `randomStringUTF8`, `fuzzBits` |
//! | `geometry` | `pointInEllipses`, `pointInPolygon` (even-odd rule, holes), `greatCircleDistance`/`greatCircleAngle`/`geoDistance` (ClickHouse's tables) |
//! | `network` | `MACNumToString`, `MACStringToNum`/`OUI`, `UUIDNumToString`, `UUIDStringToNum`, `UUIDToNum`, `IPv4CIDRToRange`/`IPv6CIDRToRange`, `IPv4ToIPv6`, `cutIPv6`, `isIPAddressInRange`, `IPv4NumToStringClassC` |
//! | `null_safe` | `divideOrNull`, `intDivOrNull`, `moduloOrNull`, `positiveModuloOrNull` (the operators on safe divisors, NULL where they would fail), `isZeroOrNull`, `isDistinctFrom`/`isNotDistinctFrom`, `firstNonDefault`, `isDecimalOverflow` |
//! | `decimal_ops` | `multiplyDecimal`, `divideDecimal` (256-bit, truncated), `toDecimalString` |
//! | [`context`] | `bar`, `byteSize`, `dumpColumnStructure`, `visibleWidth`, `defaultValueOf*`, `errorCodeToName`, `blockSize`, server facts (`FQDN`, `serverUUID`, `tcpPort`, shards) |
//! | [`supertype`] | ClickHouse's least common type (`if`, `multiIf`, comparisons, `range`) |
//! | [`sqlnames`] | function-name rewriting for the SQL front end (case, `SUBSTRING` syntax) |
//! | [`combinators`] | `-If`, `-Distinct`, `-OrNull`, `-OrDefault`, `-State`, `-Merge`, `-MergeState`, `-Array`, `-ForEach`, `AggregateFunction` states, `finalizeAggregation`, [`merge_aggregate_states`] |
//! | [`for_each`] | `-ForEach` / `-IfForEach`: one base accumulator per array position |
//! | [`states`] | serialized aggregate states in ClickHouse's layouts, [`states::split_states`] for Native and RowBinary |
//! | [`aggregate`] | `count`, `sum`, `avg`, `min`, `max`, `any`, `anyLast`, `argMin/Max`, `uniqExact`, `groupArray` |
//! | `uniq_combined` | `uniqCombined`, `uniqCombined64`, `uniqHLL12` with ClickHouse's small set / hash set / HyperLogLog |
//! | `topk` | `topK`, `topKWeighted`: ClickHouse's Filtered Space-Saving, ties in its order |
//! | `group_uniq_array` | `groupUniqArray` in the order of ClickHouse's hash set |
//! | `hypothesis_tests` | `studentTTest`, `welchTTest`, `meanZTest`, `studentTTestOneSample`, `mannWhitneyUTest`, `kolmogorovSmirnovTest`: (statistic, p-value) tuples with ClickHouse's states |
//! | `cross_tab` | `cramersV`, `cramersVBiasCorrected`, `contingency`, `theilsU` over counts of hashed values |
//! | `distributions` | normal and Student's t CDFs and quantiles, the regularized incomplete beta |
//! | `moments` | `varPop`, `varSamp`, `stddevPop`, `stddevSamp`, `covarPop`, `covarSamp`, `corr` and their `Stable` forms |
//!
//! ## Conventions
//! * Errors are [`granary_common::Error`]s with ClickHouse codes, carried through
//!   DataFusion by `into_datafusion()`.
//! * Kernels are vectorized over Arrow arrays; constants are folded at plan time.
//! * Result nullability follows ClickHouse: a function of `Nullable` arguments returns
//!   `Nullable`, a function of non-Nullable arguments does not, so that
//!   `ChType::from_field` on the result field shows ClickHouse's type.
//! * The server time zone is `datafusion.execution.time_zone` (else `TZ`, else UTC).

pub mod aggregate;
mod arg_min_max;
pub mod args;
pub mod combinators;
mod chains;
mod matrix_stats;
mod quantile_bfloat16;
mod quantile_timing;
mod single_value;
mod analysis_of_variance;
pub mod arithmetic;
mod array_ranked;
mod array_shuffle;
mod bits;
mod bits_more;
mod integer_math;
mod cxx_sort;
mod rounding;
mod running;
pub mod array;
mod array_access;
mod array_aggregate;
mod array_build;
mod array_reduce;
mod array_set;
mod array_metrics;
mod array_reshape;
mod array_sort;
pub mod calendar;
pub mod conditional;
mod consistent_hash;
pub mod context;
mod decimal_ops;
mod null_safe;
mod network;
mod constant_divisor;
mod low_cardinality_result;
pub mod conversion;
pub mod datetime;
pub mod datetime_text;
mod encoding;
pub mod for_each;
pub mod float_comparisons;
pub mod format;
mod hash;
mod hash_algorithms;
pub mod func;
mod introspection;
mod durations;
mod snowflake;
mod intervals;
mod julian;
mod ip;
mod json;
pub mod lambda;
pub mod literals;
mod map_functions;
mod math;
mod special_math;
pub mod parse;
mod parse_datetime;
mod printf;
mod random;
mod geometry;
mod readable;
mod regexp;
mod reinterpret;
mod registry;
mod search;
pub mod sqlnames;
pub mod states;
pub mod supertype;
pub mod string;
mod string_build;
mod string_extra;
mod string_metrics;
mod string_words;
mod vector_distance;
mod value_mapping;
pub mod system;
mod text;
mod time_window;
pub mod tuple;
mod tuple_arithmetic;
pub mod tz;
pub mod unsigned_order;
mod uniq;
mod uniq_combined;
mod topk;
mod group_uniq_array;
mod histogram;
mod hypothesis_tests;
mod cross_tab;
mod distributions;
mod uniq_combined_bias;
mod moments;
mod native_state;
mod map_aggregates;
pub mod map_key;
mod sequences;
mod funnels;
mod group_array_intersect;
mod hash_set_order;
mod group_array_sample;
mod sparkbar;
mod quantile_gk;
mod quantile_dd;
mod group_arrays;
mod bitmap;
mod key_value;
mod html;
mod html_entities;
mod query_normalize;
mod unicode_normalize;
mod sqids;
mod ngram_similarity;
mod bitmap_set;
mod group_bitmap;
mod running_sums;
mod sample_stats;
mod value_stats;
mod distinct;
pub mod parametric;
mod quantile;
mod multi_match;
mod url;
mod variant;
mod utf8;
mod window;

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use datafusion::execution::{FunctionRegistry, SessionState};
use datafusion::logical_expr::{AggregateUDF, ScalarUDF};
use granary_common::{Error, ErrorCode, Result};

pub use conversion::{cast_to_chtype, convert_array};
pub use tuple::MapPlanner;
pub use literals::{check_string_number_comparisons, fixed_string_literals, type_expression_literals, type_literals};
pub use combinators::{check_deprecated_window_functions, merge_aggregate_states, Float64Aggregate};
pub use float_comparisons::ieee_float_comparisons;
pub use map_key::MapKeyPart;
pub use unsigned_order::{uint256_comparisons, uint256_sort_key, uint256_sort_keys};
pub use func::{ch_type_of_field, is_nullable_field, NULLABLE_METADATA_KEY};
pub use supertype::least_supertype;
pub use sqlnames::prepare_function_names;
pub use parse_datetime::zoned_parse_default_format;
pub use parametric::parametric_aggregates;
pub use introspection::check_introspection_allowed;
pub use sequences::check_funnel_functions_allowed;

/// One row of `system.functions`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionInfo {
    pub name: String,
    pub is_aggregate: bool,
    pub case_insensitive: bool,
    /// The canonical name when this is an alias, else empty.
    pub alias_to: String,
    pub description: String,
}

fn all_scalars() -> Vec<ScalarUDF> {
    let mut out = Vec::new();
    out.extend(conversion::functions());
    out.extend(variant::functions());
    out.extend(datetime::functions());
    out.extend(intervals::functions());
    out.extend(snowflake::functions());
    out.extend(calendar::functions());
    out.extend(datetime_text::functions());
    out.extend(tuple::functions());
    out.extend(map_functions::functions());
    out.extend(conditional::functions());
    out.extend(low_cardinality_result::functions());
    out.extend(arithmetic::functions());
    out.extend(bits::functions());
    out.extend(bits_more::functions());
    out.extend(bitmap::functions());
    out.extend(integer_math::functions());
    out.extend(rounding::functions());
    out.extend(string::functions());
    out.extend(search::functions());
    out.extend(utf8::functions());
    out.extend(string_build::functions());
    out.extend(string_extra::functions());
    out.extend(string_metrics::functions());
    out.extend(string_words::functions());
    out.extend(key_value::functions());
    out.extend(html::functions());
    out.extend(query_normalize::functions());
    out.extend(unicode_normalize::functions());
    out.extend(sqids::functions());
    out.extend(ngram_similarity::functions());
    out.extend(vector_distance::functions());
    out.extend(value_mapping::functions());
    out.extend(encoding::functions());
    out.extend(julian::functions());
    out.extend(printf::functions());
    out.extend(time_window::functions());
    out.extend(running::functions());
    out.extend(tuple_arithmetic::functions());
    out.extend(regexp::functions());
    out.extend(array::functions());
    out.extend(array_access::functions());
    out.extend(array_aggregate::functions());
    out.extend(array_sort::functions());
    out.extend(array_set::functions());
    out.extend(array_metrics::functions());
    out.extend(hypothesis_tests::functions());
    out.extend(array_reshape::functions());
    out.extend(array_build::functions());
    out.extend(array_reduce::functions());
    out.extend(array_ranked::functions());
    out.extend(array_shuffle::functions());
    out.extend(system::functions());
    out.extend(random::functions());
    out.extend(geometry::functions());
    out.extend(context::functions());
    out.extend(null_safe::functions());
    out.extend(decimal_ops::functions());
    out.extend(network::functions());
    out.extend(hash::functions());
    out.extend(consistent_hash::functions());
    out.extend(ip::functions());
    out.extend(json::functions());
    out.extend(url::functions());
    out.extend(reinterpret::functions());
    out.extend(readable::functions());
    out.extend(durations::functions());
    out.extend(math::functions());
    out.extend(multi_match::functions());
    out.extend(parse_datetime::functions());
    out.extend(introspection::functions());
    out.push(combinators::finalize_aggregation());
    out.push(combinators::running_accumulate());
    out
}

/// Names under which `canonical` is registered besides itself: its ClickHouse aliases
/// and, for case-insensitive names, their lowercase spellings.
fn extra_names(canonical: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let mut push = |n: String| {
        if n != canonical && !names.contains(&n) {
            names.push(n);
        }
    };
    if is_case_insensitive(canonical) {
        push(canonical.to_ascii_lowercase());
    }
    for (alias, target) in registry::ALIASES {
        if *target == canonical {
            push(alias.to_string());
            if is_case_insensitive(alias) {
                push(alias.to_ascii_lowercase());
            }
        }
    }
    names
}

/// The names Granary itself registers (canonical names only).
fn granary_names() -> &'static HashSet<String> {
    static NAMES: std::sync::OnceLock<HashSet<String>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        let (scalars, aggregates) = registered();
        let mut set: HashSet<String> = scalars.iter().map(|f| f.name().to_string()).collect();
        set.extend(aggregates.iter().map(|f| f.name().to_string()));
        set
    })
}

/// Whether `name` is a registered scalar or aggregate function or an alias of one (the
/// per-query ones, parametric calls and combinator chains, are not).
pub(crate) fn is_registered_name(name: &str) -> bool {
    static NAMES: std::sync::OnceLock<HashSet<String>> = std::sync::OnceLock::new();
    NAMES
        .get_or_init(|| {
            let (scalars, aggregates) = registered();
            let mut set = HashSet::new();
            for f in scalars {
                set.insert(f.name().to_string());
                set.extend(f.aliases().iter().cloned());
            }
            for f in aggregates {
                set.insert(f.name().to_string());
                set.extend(f.aliases().iter().cloned());
            }
            set
        })
        .contains(name)
}

/// Every Granary UDF and UDAF with its aliases, built once per process: the names
/// (some generated, like `toUInt8OrNull`) are leaked exactly once, and each new
/// session only clones `Arc`s.
pub(crate) fn registered() -> &'static (Vec<Arc<ScalarUDF>>, Vec<Arc<AggregateUDF>>) {
    static ALL: std::sync::OnceLock<(Vec<Arc<ScalarUDF>>, Vec<Arc<AggregateUDF>>)> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        let scalars = all_scalars()
            .into_iter()
            .map(|udf| {
                let extra = extra_names(udf.name());
                Arc::new(if extra.is_empty() { udf } else { with_aliases(udf, extra) })
            })
            .collect();
        let mut aggregates: Vec<Arc<AggregateUDF>> = aggregate::aggregates()
            .into_iter()
            .map(|udaf| {
                let extra = extra_names(udaf.name());
                Arc::new(if extra.is_empty() { udaf } else { udaf_with_aliases(udaf, extra) })
            })
            .collect();
        let combined = combinators::combined(&aggregates);
        aggregates.extend(combined.into_iter().map(Arc::new));
        (scalars, aggregates)
    })
}

/// Registers every Granary function (scalar UDFs, UDAFs, aliases, lowercase spellings
/// of case-insensitive names) into `state`, replacing DataFusion's built-ins of the
/// same names. Cheap: the functions are built once per process and shared.
///
/// Takes `&mut SessionState` (DataFusion 55's `FunctionRegistry` is implemented on the
/// state). With a `SessionContext`, use [`register_all_in_context`].
pub fn register_all(state: &mut SessionState) -> Result<()> {
    system::mark_server_start();
    granary_types::aggregate_state::set_state_reader(states::split_states);
    let (scalars, aggregates) = registered();
    for udf in scalars {
        state.register_udf(Arc::clone(udf)).map_err(Error::from)?;
    }
    for udaf in aggregates {
        state.register_udaf(Arc::clone(udaf)).map_err(Error::from)?;
    }
    for udwf in window::window_functions() {
        state.register_udwf(Arc::new(udwf)).map_err(Error::from)?;
    }
    for hof in lambda::functions() {
        state.register_higher_order_function(Arc::new(hof)).map_err(Error::from)?;
    }
    // ClickHouse's other names of DataFusion built-ins that Granary keeps as they are.
    for (alias, target) in [("ceiling", "ceil"), ("truncate", "trunc")] {
        if let Some(builtin) = state.scalar_functions().get(target).cloned() {
            state.register_udf(Arc::new(with_aliases(builtin.as_ref().clone(), vec![alias.to_string()]))).map_err(Error::from)?;
        }
    }
    drop_shadowed(state);
    Ok(())
}

/// Removes built-ins that lost any of their names to a Granary function.
///
/// DataFusion keeps a replaced function under its other names (DataFusion's `avg` stays
/// under `mean`), and a state rebuilt from an existing one re-registers every function
/// with all its names in hash-map order, so the stale one could win a name back at
/// random. Keeping only functions that own all their names makes every rebuild identical.
fn drop_shadowed(state: &mut SessionState) {
    fn owners<T>(map: &std::collections::HashMap<String, Arc<T>>, names: impl Fn(&T) -> Vec<String>) -> Vec<Arc<T>> {
        let mut kept: Vec<Arc<T>> = Vec::new();
        for f in map.values() {
            let owns_all = names(f).iter().all(|n| map.get(n).is_some_and(|g| Arc::ptr_eq(g, f)));
            if owns_all && !kept.iter().any(|k| Arc::ptr_eq(k, f)) {
                kept.push(f.clone());
            }
        }
        kept
    }
    let scalars = owners(state.scalar_functions(), |f: &ScalarUDF| {
        std::iter::once(f.name().to_string()).chain(f.aliases().iter().cloned()).collect()
    });
    let aggregates = owners(state.aggregate_functions(), |f: &AggregateUDF| {
        std::iter::once(f.name().to_string()).chain(f.aliases().iter().cloned()).collect()
    });
    *state = datafusion::execution::session_state::SessionStateBuilder::new_from_existing(state.clone())
        .with_scalar_functions(scalars)
        .with_aggregate_functions(aggregates)
        .build();
}

/// [`register_all`] for a [`datafusion::prelude::SessionContext`].
pub fn register_all_in_context(ctx: &datafusion::prelude::SessionContext) -> Result<()> {
    let guard = ctx.state_ref();
    let mut state = guard.write();
    register_all(&mut state)
}

fn with_aliases(udf: ScalarUDF, names: Vec<String>) -> ScalarUDF {
    // `ScalarUDF::with_aliases` wants `&'static str`; the names live for the process.
    let names: Vec<&'static str> = names.into_iter().map(|n| &*Box::leak(n.into_boxed_str())).collect();
    udf.with_aliases(names)
}

fn udaf_with_aliases(udaf: AggregateUDF, names: Vec<String>) -> AggregateUDF {
    let names: Vec<&'static str> = names.into_iter().map(|n| &*Box::leak(n.into_boxed_str())).collect();
    udaf.with_aliases(names)
}

/// Whether ClickHouse treats `name` case-insensitively (`sum`, `SUM` and `Sum` are one
/// function). The SQL front end lowercases these names before lookup; Granary
/// registers a lowercase spelling for each of them.
pub fn is_case_insensitive(name: &str) -> bool {
    registry::clickhouse_case_insensitive(name)
}

/// Every function a session can call, for `system.functions`: Granary's functions
/// and aliases plus DataFusion's built-ins that remain reachable. Lowercase spellings
/// added only for case-insensitive lookup are not listed (ClickHouse lists one name).
pub fn function_catalog(state: &SessionState) -> Vec<FunctionInfo> {
    let ours = granary_names();
    let mut rows: BTreeMap<String, FunctionInfo> = BTreeMap::new();
    let mut add = |key: &str, canonical: &str, is_aggregate: bool, df_description: Option<&str>| {
        let is_lower_spelling = key != canonical
            && key.chars().all(|c| !c.is_ascii_uppercase())
            && (canonical.eq_ignore_ascii_case(key)
                || registry::ALIASES.iter().any(|(a, t)| *t == canonical && a.eq_ignore_ascii_case(key) && *a != key));
        if is_lower_spelling && ours.contains(canonical) {
            return;
        }
        let description = if ours.contains(canonical) {
            registry::description(canonical).to_string()
        } else {
            df_description.unwrap_or("DataFusion built-in function.").to_string()
        };
        rows.insert(
            key.to_string(),
            FunctionInfo {
                name: key.to_string(),
                is_aggregate,
                case_insensitive: is_case_insensitive(key),
                alias_to: if key == canonical { String::new() } else { canonical.to_string() },
                description,
            },
        );
    };
    for (key, udf) in state.scalar_functions() {
        add(key, udf.name(), false, udf.documentation().map(|d| d.description.as_str()));
    }
    let is_base = |n: &str| aggregate::aggregates().iter().any(|a| a.name() == n);
    for (key, udaf) in state.aggregate_functions() {
        // Combinator forms (`sumState`) are not functions of their own in ClickHouse.
        if ours.contains(udaf.name()) && combinators::split_combinators(key, &is_base).is_some() {
            continue;
        }
        add(key, udaf.name(), true, udaf.documentation().map(|d| d.description.as_str()));
    }
    for (key, udwf) in state.window_functions() {
        let shadowed = state.scalar_functions().contains_key(key) || state.aggregate_functions().contains_key(key);
        if !shadowed {
            add(key, udwf.name(), false, udwf.documentation().map(|d| d.description.as_str()));
        }
    }
    // Parametric families that need their parameters (`quantiles`, `windowFunnel`) are
    // registered per call, so the session does not hold them.
    let families = parametric::FAMILIES.iter().map(|(name, _)| (*name, "")).chain(parametric::FAMILY_ALIASES.iter().copied());
    for (name, target) in families {
        rows.entry(name.to_string()).or_insert_with(|| FunctionInfo {
            name: name.to_string(),
            is_aggregate: true,
            case_insensitive: is_case_insensitive(name),
            alias_to: target.to_string(),
            description: registry::description(if target.is_empty() { name } else { target }).to_string(),
        });
    }
    // Functions the front end turns into something else (a lambda form, a table-level
    // unnest) still exist for users.
    for name in lambda::LAMBDA_FUNCTIONS.iter().chain(&["arrayJoin"]) {
        rows.entry(name.to_string()).or_insert_with(|| FunctionInfo {
            name: name.to_string(),
            is_aggregate: false,
            case_insensitive: false,
            alias_to: String::new(),
            description: registry::description(name).to_string(),
        });
    }
    for (name, target) in context::QUERY_LAYER_FUNCTIONS {
        rows.entry(name.to_string()).or_insert_with(|| FunctionInfo {
            name: name.to_string(),
            is_aggregate: false,
            case_insensitive: is_case_insensitive(name),
            alias_to: target.to_string(),
            description: registry::description(if target.is_empty() { name } else { target }).to_string(),
        });
    }
    rows.into_values().collect()
}

/// For callers that need a code for "no such function" in the ClickHouse style.
pub fn unknown_function(name: &str) -> Error {
    Error::new(ErrorCode::UNKNOWN_FUNCTION, format!("Unknown function {name}"))
}
