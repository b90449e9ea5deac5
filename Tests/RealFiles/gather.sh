#!/bin/bash
# Rebuilds the real-file corpora mrq's tests read ($MRQ_REAL_FILES, default /work/real; issue 31)
# from repository snapshots that the `fetch` tool brought to $MIRROR/<owner+name>/repo (bare git dirs).
# Fetch first every repository named in the lists below (column 1, owner+name = github owner/name).
# Files are taken by blob id, so what is copied is exactly what was checked (sha256 in MANIFEST.tsv).
#   corpus/<owner+name>/<path>            a store at the repository's HEAD
#   corpus/<owner+name>/@<commit7>/<path>  a store found only in an earlier commit
#   plaso/<name> (+ <name>.modelcache.plist, Z_MODELCACHE inflated)   log2timeline/plaso's test stores, flat
#   models/<name>/<model>.xcdatamodel(d)  model folders of public projects
# Duplicates (same blob) are copied once; excluded stores are listed in the manifest only.
set -euo pipefail
MIRROR=${MIRROR:-/work/.mirror}
DEST=${MRQ_REAL_FILES:-/work/real}
mkdir -p "$DEST/corpus" "$DEST/plaso" "$DEST/models"
LIST=$(mktemp)
trap 'rm -f "$LIST"' EXIT
missing=0
gitdir() { if [ -d "$MIRROR/$1/repo/.git" ]; then echo "$MIRROR/$1/repo/.git"; else echo "$MIRROR/$1/repo"; fi; }
have() { [ -d "$MIRROR/$1" ] || { echo "not in $MIRROR (fetch github:${1/+//} first): $1" >&2; missing=1; return 1; }; }
blob() { git --git-dir "$(gitdir "$1")" cat-file blob "$2" > "$3"; }
store() { # repo path blob wal shm commit local status
  local repo=$1 path=$2 b=$3 wal=$4 shm=$5 commit=$6 local=$7 status=$8
  printf '%s\t%s\t%s\t%s\n' "$repo" "$path" "$local" "$status" >> "$LIST"
  [ "$status" = store ] || return 0
  have "$repo" || return 0
  mkdir -p "$(dirname "$DEST/corpus/$local")"
  blob "$repo" "$b" "$DEST/corpus/$local"
  if [ "$wal" != - ]; then blob "$repo" "$wal" "$DEST/corpus/$local-wal"; fi
  if [ "$shm" != - ]; then blob "$repo" "$shm" "$DEST/corpus/$local-shm"; fi
}
plaso() { # repo blob wal shm name
  have "$1" || return 0
  blob "$1" "$2" "$DEST/plaso/$5"
  if [ "$3" != - ]; then blob "$1" "$3" "$DEST/plaso/$5-wal"; fi
  if [ "$4" != - ]; then blob "$1" "$4" "$DEST/plaso/$5-shm"; fi
  python3 - "$DEST/plaso/$5" <<'PY'
import sqlite3, sys, zlib
path = sys.argv[1]
con = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
try:
    row = con.execute("SELECT Z_CONTENT FROM Z_MODELCACHE").fetchone()
except sqlite3.Error:
    row = None
if row and row[0]:
    data = bytes(row[0])
    for bits in (-15, 15, 47):
        try:
            out = zlib.decompress(data, bits); break
        except zlib.error:
            out = None
    if out: open(path + ".modelcache.plist", "wb").write(out)
PY
}
model() { # repo path dest: the folder's files one by one (a snapshot may lack large unrelated blobs)
  have "$1" || return 0
  local g mode type b file rel
  g=$(gitdir "$1")
  rm -rf "$DEST/models/$3"
  while IFS=$'\t' read -r meta file; do
    read -r mode type b <<< "$meta"
    [ "$type" = blob ] || continue
    rel=${file#"$2"}
    mkdir -p "$(dirname "$DEST/models/$3$rel")"
    git --git-dir "$g" cat-file blob "$b" > "$DEST/models/$3$rel"
  done < <(git --git-dir "$g" ls-tree -r HEAD -- "$2/")
}
mom() { # repo path blob: a compiled model beside the stores
  have "$1" || return 0
  mkdir -p "$(dirname "$DEST/corpus/$1/$2")"
  blob "$1" "$3" "$DEST/corpus/$1/$2"
}
manifest() {
  python3 - "$LIST" "$DEST" <<'PY'
import hashlib, os, plistlib, sqlite3, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
dest = sys.argv[2]
with open(os.path.join(dest, "MANIFEST.tsv"), "w") as out:
    out.write("repo\tpath\tlocal\tsha256\tbytes\thas_modelcache\tframework_version\tstatus\n")
    for repo, path, local, status in rows:
        full = os.path.join(dest, "corpus", local)
        target = full
        if status.startswith("duplicate of "):
            target = os.path.join(dest, "corpus", status[len("duplicate of "):])
        sha = size = cache = version = ""
        if os.path.exists(target):
            data = open(target, "rb").read()
            sha, size = hashlib.sha256(data).hexdigest(), str(len(data))
            try:
                con = sqlite3.connect(f"file:{target}?mode=ro&immutable=1", uri=True)
                names = {r[0] for r in con.execute("select name from sqlite_master")}
                cache = "no"
                if "Z_MODELCACHE" in names:
                    r = con.execute("select Z_CONTENT from Z_MODELCACHE").fetchone()
                    cache = "yes" if r and r[0] else "no"
                r = con.execute("select Z_PLIST from Z_METADATA").fetchone()
                if r and r[0]:
                    version = str(plistlib.loads(bytes(r[0])).get("NSPersistenceFrameworkVersion", ""))
            except Exception as e:
                version = version or f"unreadable: {e}"
        out.write("\t".join([repo.replace("+", "/", 1), path, "corpus/" + local if status == "store" else "", sha, size, cache, version, status]) + "\n")
PY
  echo "manifest: $DEST/MANIFEST.tsv"
  [ $missing = 0 ] || echo "some repositories were missing: fetch them and run again" >&2
}

# repo	path	blob	wal	shm	commit	local	status
while IFS=$'\t' read -r repo path blob wal shm commit local status; do
  store "$repo" "$path" "$blob" "$wal" "$shm" "$commit" "$local" "$status"
done <<'STORES'
73153+apple-ios-samples-master	CoreDataBooks/CoreDataBooks.CDBStore	75b383c94eec570735d19164baef4c870dd248db	-	-	bef3e1a92c53d30ec4e4a05e9470a1c1d71c22b7	73153+apple-ios-samples-master/CoreDataBooks/CoreDataBooks.CDBStore	store
73153+apple-ios-samples-master	iPhoneCoreDataRecipes/RecipeData/Recipes.sqlite	426001fe1fceb1f57872531dc2daf786ba1f844d	-	-	bef3e1a92c53d30ec4e4a05e9470a1c1d71c22b7	73153+apple-ios-samples-master/iPhoneCoreDataRecipes/RecipeData/Recipes.sqlite	store
wibosco+CoreDataMigration-Example	CoreDataMigration-ExampleTests/Resources/SQLite/CoreDataMigration_Example_1.sqlite	fe8be46d4722404455533315c33ea8db97592696	-	-	81271e5f93424191b644cc1baab87cff3565ea05	wibosco+CoreDataMigration-Example/CoreDataMigration-ExampleTests/Resources/SQLite/CoreDataMigration_Example_1.sqlite	store
wibosco+CoreDataMigration-Example	CoreDataMigration-ExampleTests/Resources/SQLite/CoreDataMigration_Example_2.sqlite	0bae4b89c393cace6c9dcc6869f968b3f4ecbb7c	-	-	81271e5f93424191b644cc1baab87cff3565ea05	wibosco+CoreDataMigration-Example/CoreDataMigration-ExampleTests/Resources/SQLite/CoreDataMigration_Example_2.sqlite	store
wibosco+CoreDataMigration-Example	CoreDataMigration-ExampleTests/Resources/SQLite/CoreDataMigration_Example_3.sqlite	8b537e4641d37f26017debb38ee8522e23a9347b	-	-	81271e5f93424191b644cc1baab87cff3565ea05	wibosco+CoreDataMigration-Example/CoreDataMigration-ExampleTests/Resources/SQLite/CoreDataMigration_Example_3.sqlite	store
wibosco+CoreDataMigration-Example	CoreDataMigration-ExampleTests/Resources/SQLite/CoreDataMigration_Example_WAL.sqlite	8b17c9b619bfcbc679c161cb42bef70eccee7a8f	6c496f811b19ee90933620392afbcad1802de02b	-	81271e5f93424191b644cc1baab87cff3565ea05	wibosco+CoreDataMigration-Example/CoreDataMigration-ExampleTests/Resources/SQLite/CoreDataMigration_Example_WAL.sqlite	store
wibosco+CoreDataMigration-Example	CoreDataMigration-ExampleTests/Tests/CoreData/Migration/Models/CoreDataMigration_Example_1.sqlite	1e18ae6f503df0bf9e85dcbd9fa81fad8057278d	-	-	116a97be7d58b5327851b1176f772d436bae0b1d	wibosco+CoreDataMigration-Example/@116a97b/CoreDataMigration-ExampleTests/Tests/CoreData/Migration/Models/CoreDataMigration_Example_1.sqlite	store
wibosco+CoreDataMigration-Example	CoreDataMigration-ExampleTests/Tests/CoreData/Migration/Models/CoreDataMigration_Example_2.sqlite	1f054c53b1701a9765bebda32d96d216ee309989	-	-	116a97be7d58b5327851b1176f772d436bae0b1d	wibosco+CoreDataMigration-Example/@116a97b/CoreDataMigration-ExampleTests/Tests/CoreData/Migration/Models/CoreDataMigration_Example_2.sqlite	store
wibosco+CoreDataMigration-Example	CoreDataMigration-ExampleTests/Tests/CoreData/Migration/Models/CoreDataMigration_Example_3.sqlite	6fdabf38348d6f9eae979483e916afec5156156e	-	-	116a97be7d58b5327851b1176f772d436bae0b1d	wibosco+CoreDataMigration-Example/@116a97b/CoreDataMigration-ExampleTests/Tests/CoreData/Migration/Models/CoreDataMigration_Example_3.sqlite	store
wibosco+CoreDataMigration-Example	CoreDataMigration-ExampleTests/Tests/CoreData/Migration/Models/CoreDataMigration_Example_3.sqlite	cf36008cf3cfb8834577212be764d26c3dcbb8bf	-	-	47700012bfa3b5be6298061fdef436eb275e33e9	wibosco+CoreDataMigration-Example/@4770001/CoreDataMigration-ExampleTests/Tests/CoreData/Migration/Models/CoreDataMigration_Example_3.sqlite	store
hwaxxer+BookMigration	BookMigration/Model1.sqlite	7b4e1e392d1948623e4da1bdc1af474de3d9960d	-	-	173c50fb5b7fd7ba830c61c261b61e13797ba447	hwaxxer+BookMigration/@173c50f/BookMigration/Model1.sqlite	store
hwaxxer+BookMigration	BookMigration/Model1.sqlite	afe7bac3371820df0428e95eb6bf94b5a70b495f	-	-	ea76546653ffdd229cf4e83e0c7a31f075409f4f	hwaxxer+BookMigration/BookMigration/Model1.sqlite	store
alanjrogers+Recipes2	RecipeData/Recipes.sqlite	426001fe1fceb1f57872531dc2daf786ba1f844d	-	-	37751e7bae0f43f564b2e557c12dbaae50831303	alanjrogers+Recipes2/@37751e7/RecipeData/Recipes.sqlite	duplicate of 73153+apple-ios-samples-master/iPhoneCoreDataRecipes/RecipeData/Recipes.sqlite
alanjrogers+Recipes2	RecipeData/Recipes.sqlite	76a4773c05f176df262eae54b8174fcc7e0cba33	-	-	8d07a9312792ea20cf19d114955b6ae3702eee4c	alanjrogers+Recipes2/@8d07a93/RecipeData/Recipes.sqlite	store
alanjrogers+Recipes2	RecipeData/Recipes.sqlite	9c444deac5c747cb7f7636c3f7f196fdf0458810	-	-	c0b2993faa13804441ca45a4f71f0875590cad73	alanjrogers+Recipes2/RecipeData/Recipes.sqlite	store
alemar11+CoreDataPlus	Learning materials/example/BookMigration-master/BookMigration/Model1.sqlite	afe7bac3371820df0428e95eb6bf94b5a70b495f	-	-	af3baca490c4ef7ef13d9c5438891cf5c52bfcc3	alemar11+CoreDataPlus/@af3baca/Learning materials/example/BookMigration-master/BookMigration/Model1.sqlite	duplicate of hwaxxer+BookMigration/BookMigration/Model1.sqlite
alemar11+CoreDataPlus	Learning materials/example/CoreDataMigrationRevised-Example-master/CoreDataMigration-ExampleTests/Tests/CoreData/Migration/Models/CoreDataMigration_Example_1.sqlite	1e18ae6f503df0bf9e85dcbd9fa81fad8057278d	-	-	af3baca490c4ef7ef13d9c5438891cf5c52bfcc3	alemar11+CoreDataPlus/@af3baca/Learning materials/example/CoreDataMigrationRevised-Example-master/CoreDataMigration-ExampleTests/Tests/CoreData/Migration/Models/CoreDataMigration_Example_1.sqlite	duplicate of wibosco+CoreDataMigration-Example/@116a97b/CoreDataMigration-ExampleTests/Tests/CoreData/Migration/Models/CoreDataMigration_Example_1.sqlite
alemar11+CoreDataPlus	Learning materials/example/CoreDataMigrationRevised-Example-master/CoreDataMigration-ExampleTests/Tests/CoreData/Migration/Models/CoreDataMigration_Example_2.sqlite	1f054c53b1701a9765bebda32d96d216ee309989	-	-	af3baca490c4ef7ef13d9c5438891cf5c52bfcc3	alemar11+CoreDataPlus/@af3baca/Learning materials/example/CoreDataMigrationRevised-Example-master/CoreDataMigration-ExampleTests/Tests/CoreData/Migration/Models/CoreDataMigration_Example_2.sqlite	duplicate of wibosco+CoreDataMigration-Example/@116a97b/CoreDataMigration-ExampleTests/Tests/CoreData/Migration/Models/CoreDataMigration_Example_2.sqlite
alemar11+CoreDataPlus	Learning materials/example/CoreDataMigrationRevised-Example-master/CoreDataMigration-ExampleTests/Tests/CoreData/Migration/Models/CoreDataMigration_Example_3.sqlite	cf36008cf3cfb8834577212be764d26c3dcbb8bf	-	-	af3baca490c4ef7ef13d9c5438891cf5c52bfcc3	alemar11+CoreDataPlus/@af3baca/Learning materials/example/CoreDataMigrationRevised-Example-master/CoreDataMigration-ExampleTests/Tests/CoreData/Migration/Models/CoreDataMigration_Example_3.sqlite	duplicate of wibosco+CoreDataMigration-Example/@4770001/CoreDataMigration-ExampleTests/Tests/CoreData/Migration/Models/CoreDataMigration_Example_3.sqlite
alemar11+CoreDataPlus	Tests/Resources/SampleModel/Fixtures/SampleModel_V1.sqlite	c6f83c7d7fe67e6ace74d120684590c24a11b5da	-	-	3c834ff9f3ff41518ceeb1a1fee099f9ef188d13	alemar11+CoreDataPlus/Tests/Resources/SampleModel/Fixtures/SampleModel_V1.sqlite	store
alemar11+CoreDataPlus	Tests/Resources/SampleModel/Fixtures/SampleModel_V2.sqlite	694ba15d05ce6e18743db242a116a532be50897c	-	-	3c834ff9f3ff41518ceeb1a1fee099f9ef188d13	alemar11+CoreDataPlus/Tests/Resources/SampleModel/Fixtures/SampleModel_V2.sqlite	store
alemar11+CoreDataPlus	Tests/Resources/SampleModel/Fixtures/_SampleModelV1.sqlite	517be7b06fae7175110e1d66531aa0bd1176c46f	-	-	346ef262338d099b79e114dbbfc010c3e3121fad	alemar11+CoreDataPlus/@346ef26/Tests/Resources/SampleModel/Fixtures/_SampleModelV1.sqlite	store
alemar11+CoreDataPlus	Tests/Resources/SampleModel/Fixtures/_SampleModelV2.sqlite	9a2851ccf38f631756dc2d07a63b04698c56c6fe	-	-	fbca827d7a348a360b69b1fde4a63ef0ea8a2213	alemar11+CoreDataPlus/@fbca827/Tests/Resources/SampleModel/Fixtures/_SampleModelV2.sqlite	store
alemar11+CoreDataPlus	Tests/Resources/SampleModel2/Fixtures/SampleModel2V1.sqlite	fe6b5e8e555b9d340f3742c8d7f1484a64297489	-	-	4f3a303bf4c234b6fc53a5e09f42917bc9c012af	alemar11+CoreDataPlus/@4f3a303/Tests/Resources/SampleModel2/Fixtures/SampleModel2V1.sqlite	store
alemar11+CoreDataPlus	Tests/Resources/SampleModel2/Fixtures/SampleModel2_V1.sqlite	d16ce86fbc342fc2457c0e123f2c7a305ec01aae	-	-	3c834ff9f3ff41518ceeb1a1fee099f9ef188d13	alemar11+CoreDataPlus/Tests/Resources/SampleModel2/Fixtures/SampleModel2_V1.sqlite	store
alemar11+CoreDataPlus	Tests/Resources/SampleModel2/Fixtures/SampleModel2_V2.sqlite	3b1893d718dd1a7ab38fe9e9e4817951117393c1	-	-	3c834ff9f3ff41518ceeb1a1fee099f9ef188d13	alemar11+CoreDataPlus/Tests/Resources/SampleModel2/Fixtures/SampleModel2_V2.sqlite	store
alemar11+CoreDataPlus	Tests/Resources/SampleModel2/Fixtures/_SampleModel2V1.sqlite	8e834984597aa3125aed792ba4ddfb9ceab55287	-	-	8ecba2979c3933afed9e9ec31212e144b1ddd193	alemar11+CoreDataPlus/@8ecba29/Tests/Resources/SampleModel2/Fixtures/_SampleModel2V1.sqlite	store
alemar11+CoreDataPlus	Tests/Resources/SampleModel2/Fixtures/_SampleModel2V2.sqlite	67eb4191a4c983bd48b88ae4c0e8763109f55c44	-	-	8ecba2979c3933afed9e9ec31212e144b1ddd193	alemar11+CoreDataPlus/@8ecba29/Tests/Resources/SampleModel2/Fixtures/_SampleModel2V2.sqlite	store
alemar11+CoreDataPlus	Tests/Resources/SampleModel3/Fixtures/SampleModel3_V1.sqlite	9a3010d7218827f6a67329bef0cd0a02069c75ab	-	-	3c834ff9f3ff41518ceeb1a1fee099f9ef188d13	alemar11+CoreDataPlus/Tests/Resources/SampleModel3/Fixtures/SampleModel3_V1.sqlite	store
alemar11+CoreDataPlus	Tests/Resources/SampleModel3/Fixtures/SampleModel3_V1.sqlite	5dae53c04075b9f5280b9c3ee050de52cc2e566e	-	-	8ecba2979c3933afed9e9ec31212e144b1ddd193	alemar11+CoreDataPlus/@8ecba29/Tests/Resources/SampleModel3/Fixtures/SampleModel3_V1.sqlite	store
alemar11+CoreDataPlus	Tests/SampleModel/SampleModelV1.sqlite	aedfddeb8c2f55ca784e6e67f5faf225cdb732bb	-	-	44c19f560b63c1a64f966421dee2600b539c0db2	alemar11+CoreDataPlus/@44c19f5/Tests/SampleModel/SampleModelV1.sqlite	store
alemar11+CoreDataPlus	Tests/SampleModelV1.sqlite	cc3334f0c6ec83ae2a0c19753363be8882727b83	-	-	6739d000c8237e5398a175f02837903ee93ec6a7	alemar11+CoreDataPlus/@6739d00/Tests/SampleModelV1.sqlite	store
alemar11+CoreDataPlus	Tests/SampleModelV2.sqlite	ed007323239a7bc85272defe91667dff954e355d	-	-	6739d000c8237e5398a175f02837903ee93ec6a7	alemar11+CoreDataPlus/@6739d00/Tests/SampleModelV2.sqlite	store
astruts+iqtodolist	IQToDoListTests/IQToDoList.sqlite	ed350c4bc5ace2223e022ffc0ba4de2d3b47157e	-	-	66f246867576acab95c6b09f7f6f7078cf6d6866	astruts+iqtodolist/@66f2468/IQToDoListTests/IQToDoList.sqlite	store
bandhavivinay+TavantTrade_iPad	Model.sqlite	779d52735b0411c07d4e78359495afa79101e542	-	-	fdd0d227c650a2ada4c8a844a1dfd86a805dbda6	bandhavivinay+TavantTrade_iPad/Model.sqlite	store
bignerdranch+CoreDataStack	Sample Model/Deprecated/TestModel.sqlite	e5c1e58b57792abb4c4f79686ba90e5c547bdf8e	-	-	ac567589b1c41c69eb2e25aedf574b69d124d3d1	bignerdranch+CoreDataStack/Sample Model/Deprecated/TestModel.sqlite	store
christoph-fassbach+CoreDataTest	Test.sqlite	c86c214b2e32a0d9731cafed995b57b87510a8c8	-	-	153d1a2499485d8ef33fe399dab6cbbc3896949c	christoph-fassbach+CoreDataTest/Test.sqlite	store
contentful+contentful-persistence.swift	Tests/ContentfulPersistenceTests/BundledPreseededDatabaseTests/Test.sqlite	9cff6f07038e093b5ac00ddc5071b411bea80bba	-	-	833514a1777784d11ffdb5dc0586ceddbba0e3f4	contentful+contentful-persistence.swift/Tests/ContentfulPersistenceTests/BundledPreseededDatabaseTests/Test.sqlite	store
designatednerd+FlickrSearcher	2-Demo/DemoSolution/FlickrSearcherTests/old_datbase_files/part_1/part_1_database.sqlite	26af72ac6580b20dc4d84284aa5ead00ff50bd14	e03b3b231aeadafccf172066294e1bc312cb9366	0a81fa0f55c5c0e03b37369ccaaf4b85b2e060cb	3154282f48cd71a8075ca8421aa7ad489121131a	designatednerd+FlickrSearcher/@3154282/2-Demo/DemoSolution/FlickrSearcherTests/old_datbase_files/part_1/part_1_database.sqlite	store
designatednerd+FlickrSearcher	3-Lab/LabSolution/FlickrSearcherTests/old_datbase_files/starter_database/starter_database.sqlite	cf862c90649e23b2f77c5ed793b14719aa71afb7	cf0dec878f6dfa4ac7a6e35fdc3c43752c8309cb	66664cbae2093533971c967a10dc0f04df1a15b4	1f6b341bd94c96521eecf697ad7d19b32532aeee	designatednerd+FlickrSearcher/3-Lab/LabSolution/FlickrSearcherTests/old_datbase_files/starter_database/starter_database.sqlite	store
duckduckgo+BrowserServicesKit	Tests/BookmarksTests/Resources/Bookmarks_V1.sqlite	dbfdd21758093e61fa28c7a87008c716a1b5151a	aff9e2d4dabfcf628c4ae150a2ce4b6ad5dfee0a	0dd5f7f2059986ad8328c1fee37ff82f23e5635e	152e11ac8e1f3ae5205777283ce6f302a59f98c6	duckduckgo+BrowserServicesKit/Tests/BookmarksTests/Resources/Bookmarks_V1.sqlite	store
duckduckgo+BrowserServicesKit	Tests/BookmarksTests/Resources/Bookmarks_V2.sqlite	3c2b9e75ce3cbc14abc0e9b5354753b3f6d1b24c	17e45ca3174d458a3059877a3c5e6cf77d46ee03	60729980b4ace7fed59629546759b197afdd80d4	152e11ac8e1f3ae5205777283ce6f302a59f98c6	duckduckgo+BrowserServicesKit/Tests/BookmarksTests/Resources/Bookmarks_V2.sqlite	store
duckduckgo+BrowserServicesKit	Tests/BookmarksTests/Resources/Bookmarks_V3.sqlite	8d7a88d90b626203ac534867f2da7f26b7bb40cf	e69de29bb2d1d6434b8b29ae775ad8c2e48c5391	fe9ac2845eca6fe6da8a63cd096d9cf9e24ece10	13dd008a1184cc1a548e6807f57e5818a4239dbe	duckduckgo+BrowserServicesKit/@13dd008/Tests/BookmarksTests/Resources/Bookmarks_V3.sqlite	store
duckduckgo+BrowserServicesKit	Tests/BookmarksTests/Resources/Bookmarks_V3.sqlite	494c6d24054f0cd685b90c33fba9d3b73fd1f303	e7fdc69ee739345b42fc2312392fa8a68dfe75cb	0d1100a08f09b153cda173e17ee086595c0278ff	152e11ac8e1f3ae5205777283ce6f302a59f98c6	duckduckgo+BrowserServicesKit/Tests/BookmarksTests/Resources/Bookmarks_V3.sqlite	store
duckduckgo+BrowserServicesKit	Tests/BookmarksTests/Resources/Bookmarks_V4.sqlite	248921609f6f913e179bc90c25d5158ca29a582d	bc900786ca38149c7b908dedeabac3fd0a221149	0738e5302878e05a53647f04879dd37338387f63	aa5cd7681739a17ca3c4d6b08387387334dbaeb2	duckduckgo+BrowserServicesKit/Tests/BookmarksTests/Resources/Bookmarks_V4.sqlite	store
duckduckgo+BrowserServicesKit	Tests/BookmarksTests/Resources/Bookmarks_V5.sqlite	1a3bbe6095efbfc416950c06ccf62acbae4f7094	16f8ec71ae13eba9e740673b52606e15874b905f	5aa8e0e2778fecf05bc67045df621fb2c8c679cf	871ec910d8ec8f07bb7fd811734496cd7f256654	duckduckgo+BrowserServicesKit/Tests/BookmarksTests/Resources/Bookmarks_V5.sqlite	store
duckduckgo+BrowserServicesKit	Tests/DDGSyncTests/Resources/SyncMetadata_V3.sqlite	fa7da3e2a120bd58372ef4212474096c4f5fe875	78b6e11a72bb5bee3be598c4eec3951cfe87d307	5ed0d0ad5953207cc3db629c6191d31c5f54238d	24da852f8726af668d9fdc6c5ea1c2d3b72e8888	duckduckgo+BrowserServicesKit/Tests/DDGSyncTests/Resources/SyncMetadata_V3.sqlite	store
gilpa+iphone_sqlite_test	CoreDataBooks.sqlite	594cda0343949be9c19567a635c2455e7ed65a94	-	-	c5a32216537200c6cb6e53beab3b5c5ee5ac69ef	gilpa+iphone_sqlite_test/CoreDataBooks.sqlite	store
greenisus+corekit	CoreDataStore.sqlite	572f762aa309130a85bd0e2fbd9403ee9b33c59e	-	-	0940de0c2a71596112405f638a5688e9944d99ed	greenisus+corekit/@0940de0/CoreDataStore.sqlite	store
greenisus+corekit	CoreDataStore.sqlite	4640086807fd59d6b0ef944ccbc20f567edb91ae	-	-	0e9e51e2e1f8953451b334768ea70e9ddab0a92e	greenisus+corekit/@0e9e51e/CoreDataStore.sqlite	store
greenisus+corekit	CoreDataStore.sqlite	d728b2e563977709c34d8fb2f746ab7fcb895112	-	-	1886e85f550650832c18beed7b36919281763ceb	greenisus+corekit/@1886e85/CoreDataStore.sqlite	store
greenisus+corekit	CoreDataStore.sqlite	77193fd1bf49a6ffa9653440583aa85fd3d1926f	-	-	2b768021f7923684deecfa9412538aae940d838f	greenisus+corekit/@2b76802/CoreDataStore.sqlite	store
greenisus+corekit	CoreDataStore.sqlite	ac1f6c58253b045bbd392b401c34ad361135d321	-	-	37d6c1a1ddec430835efbb76366ccfcb4afc3920	greenisus+corekit/@37d6c1a/CoreDataStore.sqlite	store
greenisus+corekit	CoreDataStore.sqlite	73b16233cd014e99190c6bc1d70235bf6e8f52d3	-	-	56d4da14e0cdd51853d4cf826d1c7888a7437db6	greenisus+corekit/@56d4da1/CoreDataStore.sqlite	store
greenisus+corekit	CoreDataStore.sqlite	c45979078617d6ba224d4c7e0e6f65404fe85ec7	-	-	b5a58527a8c22afddc055c6fe69affdadaddc5c0	greenisus+corekit/@b5a5852/CoreDataStore.sqlite	store
greenisus+corekit	CoreDataStore.sqlite	7c9024db62a8c556e667be53f4a71dfa7a6fd986	-	-	bdfe60db495b4b4cde001cf797641dbce74850c2	greenisus+corekit/CoreDataStore.sqlite	store
greenisus+corekit	CoreDataStore.sqlite	01fa75d0aad977e4bf58978ca60e9c4cddb65158	-	-	e1d63e2528d8fbe4f4b6536eb3c99ddca5030ce2	greenisus+corekit/@e1d63e2/CoreDataStore.sqlite	store
helloyzy+TestRestKit	RKSeedDatabase.sqlite	2b67c2d20d14115eabe4248dd052c0eec2dbbeab	-	-	7d33af0b19fab047bd1a2efec9f58c7738d5e6e3	helloyzy+TestRestKit/RKSeedDatabase.sqlite	store
helloyzy+TestRestKit	RKSeedDatabase.sqlite	ae944818cc5a85a6d17e5c9484d53a8ced133869	-	-	b28f808e6876794c5326009846d38024bedc1d38	helloyzy+TestRestKit/@b28f808/RKSeedDatabase.sqlite	store
helloyzy+TestRestKit	RKSeedDatabase.sqlite	138335e6c8f62347e427a5843edd2d5d9f1f7209	-	-	c3ca5ee0022325006e597bef1cdcbafc1c507891	helloyzy+TestRestKit/@c3ca5ee/RKSeedDatabase.sqlite	store
helloyzy+TestRestKit	RKSeedDatabase.sqlite	87620fc613464c8c3c129c0f88e07333b0086def	-	-	d8ce663e6ff582f5492f950f5a0e71cc2cdb101f	helloyzy+TestRestKit/@d8ce663/RKSeedDatabase.sqlite	store
helloyzy+TestRestKit	RKSeedDatabase.sqlite	5664f35bd50168c4624f824e896487702332e792	-	-	f3f4a80c0980624b17135957f1c699a63ca38581	helloyzy+TestRestKit/@f3f4a80/RKSeedDatabase.sqlite	store
jeffreybergier+CoreDataMigrationTests	CoreDataMigration/CoreDataMigrationTests/Example_v1.0.0.sqlite	f228aa300593b651a435b6667f278735340f0894	-	-	187e8270ab39a06ff15731a9da91158b6d1b3b4e	jeffreybergier+CoreDataMigrationTests/CoreDataMigration/CoreDataMigrationTests/Example_v1.0.0.sqlite	store
jeffreybergier+CoreDataMigrationTests	CoreDataMigration/CoreDataMigrationTests/Example_v1.1.0.sqlite	8cf5d6d5895e327a73eba13f70e2a0c1986ff946	-	-	9e6a6318b5c492f12d1afb96b9bd6ff008392cf7	jeffreybergier+CoreDataMigrationTests/CoreDataMigration/CoreDataMigrationTests/Example_v1.1.0.sqlite	store
jeffreybergier+CoreDataMigrationTests	CoreDataMigration/CoreDataMigrationTests/Example_v1.1.2.sqlite	1912863d8b4da027ddce493d94f8d271cce3e8b9	-	-	9e6a6318b5c492f12d1afb96b9bd6ff008392cf7	jeffreybergier+CoreDataMigrationTests/CoreDataMigration/CoreDataMigrationTests/Example_v1.1.2.sqlite	store
jeffreybergier+CoreDataMigrationTests	CoreDataMigration/CoreDataMigrationTests/Example_v1.2.0.sqlite	ba9b023f19aff7bb35b0b0a864e722ba9f9d8a05	-	-	9e6a6318b5c492f12d1afb96b9bd6ff008392cf7	jeffreybergier+CoreDataMigrationTests/CoreDataMigration/CoreDataMigrationTests/Example_v1.2.0.sqlite	store
jeffreybergier+CoreDataMigrationTests	CoreDataMigration/CoreDataMigrationTests/Example_v2.0.0.sqlite	557823fc0b7a35eb68bb1ea26881651fbda6942b	-	-	9e6a6318b5c492f12d1afb96b9bd6ff008392cf7	jeffreybergier+CoreDataMigrationTests/CoreDataMigration/CoreDataMigrationTests/Example_v2.0.0.sqlite	store
kodecocodes+cdt-materials	09-multiple-managed-object-contexts/projects/challenge/SurfJournal/SurfJournal/CoreDataSeed/SurfJournalModel.sqlite	2b99a2cc4880c607e26cfa21fe6f83bfb6c32850	8ff101e40b3dc70d657702e18a5a741eafba9edf	1e4b84251792ad234ea9608a12e3f51f97452701	dfb0e5fcec15d9874a4c2d1219aefc1571c77090	kodecocodes+cdt-materials/09-multiple-managed-object-contexts/projects/challenge/SurfJournal/SurfJournal/CoreDataSeed/SurfJournalModel.sqlite	store
larromba+EasyLife	EasyLifeTests/EasyLife 1.3.0.sqlite	3a0cf9ce79642b8cfa5d4c183c8276cf4b021753	-	-	a31ea73dffe50cc5c5cb397caba24adbf4b8d4e0	larromba+EasyLife/EasyLifeTests/EasyLife 1.3.0.sqlite	store
larromba+EasyLife	EasyLifeTests/EasyLife 1.5.0.sqlite	ef2a8dcde5adbfa3eca5d5ba99b86e3fb7674cd3	-	-	040ad5b800b6c609df13e10a17e136c6a13a958d	larromba+EasyLife/EasyLifeTests/EasyLife 1.5.0.sqlite	store
larromba+EasyLife	EasyLifeTests/EasyLife.sqlite	14b70de951b8e709d0226c917adb98fb08007c56	-	-	a31ea73dffe50cc5c5cb397caba24adbf4b8d4e0	larromba+EasyLife/EasyLifeTests/EasyLife.sqlite	store
log2timeline+plaso	test_data/NotesV7.storedata	95c8e5d74ce6f1799d2c945f5c27113a69f85cfa	e69de29bb2d1d6434b8b29ae775ad8c2e48c5391	fe9ac2845eca6fe6da8a63cd096d9cf9e24ece10	62b554f0b5f7d54246c1bdfd0949f664a2ce1484	log2timeline+plaso/@62b554f/test_data/NotesV7.storedata	store
log2timeline+plaso	test_data/ios/Accounts3.sqlite	719065727e2b9067f3512fc3b2902cdcc3daec68	-	-	5bb98ba95638ad5a58bb94e0bc2259ba20758adb	log2timeline+plaso/test_data/ios/Accounts3.sqlite	store
log2timeline+plaso	test_data/ios/DataUsage.sqlite	fb2cf4e8324876699e2a181d3ecba2edc271c060	-	-	5bb98ba95638ad5a58bb94e0bc2259ba20758adb	log2timeline+plaso/test_data/ios/DataUsage.sqlite	store
log2timeline+plaso	test_data/ios/IMODb2.sqlite	0f66563ece5b9899ec27e24121ac0d30638f1907	-	-	5bb98ba95638ad5a58bb94e0bc2259ba20758adb	log2timeline+plaso/test_data/ios/IMODb2.sqlite	store
log2timeline+plaso	test_data/ios/NoteStore.sqlite	07703c832ea2fdacfe2f179779a5836542cf4c3f	-	-	80a4e14c854a28a489aaee6fdbb7b9c772303bbb	log2timeline+plaso/test_data/ios/NoteStore.sqlite	store
log2timeline+plaso	test_data/ios/RMAdminStore-Local.sqlite	74bd2f3ce9bb7792a488adfdcc7f6c34752a6895	-	-	5bb98ba95638ad5a58bb94e0bc2259ba20758adb	log2timeline+plaso/test_data/ios/RMAdminStore-Local.sqlite	store
log2timeline+plaso	test_data/ios/kik.sqlite	adc33ed1a89bbef21bd8fe02ea1548a39facb0d2	-	-	5bb98ba95638ad5a58bb94e0bc2259ba20758adb	log2timeline+plaso/test_data/ios/kik.sqlite	store
log2timeline+plaso	test_data/ios/netusage.sqlite	18752530275e9bce702b933d1b270b80ad7f7bbb	-	-	5bb98ba95638ad5a58bb94e0bc2259ba20758adb	log2timeline+plaso/test_data/ios/netusage.sqlite	store
log2timeline+plaso	test_data/macos/NotesV7.storedata	b55e2bf8010f2618ea582795784db606b06b9158	-	-	849b807e431d28d2efb6434b458b40db7d17724e	log2timeline+plaso/test_data/macos/NotesV7.storedata	store
log2timeline+plaso	test_data/macos/knowledgec-10.13.db	a50f44c5a072992031155deafee49cef685d8734	-	-	849b807e431d28d2efb6434b458b40db7d17724e	log2timeline+plaso/test_data/macos/knowledgec-10.13.db	store
log2timeline+plaso	test_data/macos/knowledgec-10.14.db	d9ba99d2a9f31ccd29e60434d5cdaea2c7bf678e	-	-	849b807e431d28d2efb6434b458b40db7d17724e	log2timeline+plaso/test_data/macos/knowledgec-10.14.db	store
LoopKit+LoopKit	LoopKitHostedTests/TestCoreData/Model.sqlite.v1.original	f5cef1dca404087a0696457909ecf9cd74072c4e	-	-	9d7162764b6ef59a8cb5c65df86907cddd6f7788	LoopKit+LoopKit/LoopKitHostedTests/TestCoreData/Model.sqlite.v1.original	store
magicalpanda+MagicalRecord	Samples/iOS/Resources/RecipeData/Recipes.sqlite	426001fe1fceb1f57872531dc2daf786ba1f844d	-	-	b11a797379b358448e499e5ae9529f953765d23f	magicalpanda+MagicalRecord/Samples/iOS/Resources/RecipeData/Recipes.sqlite	duplicate of 73153+apple-ios-samples-master/iPhoneCoreDataRecipes/RecipeData/Recipes.sqlite
MargaretYe+IOS-note	NoteStore.sqlite	d4e130687c7b5fac81ad13a9c3b9130288a10392	54b90990c33fba8dcf2b1084afc5584111ef5138	e0982dfe68c02dec0384336f0df81e2fefcc6b8c	71684b43afdc9509b7feae8fdbe70e25e26a2964	MargaretYe+IOS-note/@71684b4/NoteStore.sqlite	store
mohammedkhalil655+noorithewife	Accounts3.sqlite	b4a511fef53e7917e289e64e51fc8035df08de5b	-	-	9716bcbac14dd79004039dab5ddcbb90e3a5216a	mohammedkhalil655+noorithewife/Accounts3.sqlite	store
mvt-project+mvt	tests/artifacts/ios_backup/0d/0d609c54856a9bb2d56729df1d68f2958a88426b	240d01ed8f2c5e0346bd5fc8bc3b4124d557cfd4	-	-	3f8dade610e0424eb5d5b75eeb119d125e0a1c4d	mvt-project+mvt/tests/artifacts/ios_backup/0d/0d609c54856a9bb2d56729df1d68f2958a88426b	excluded: mvt's trimmed copy of DataUsage.sqlite (10 usage rows): its Z_MODELCACHE deflate stream stops before its end (7194 bytes inflate to 14712 of an unfinished plist), which Core Data cannot read back either; mrq refuses it naming the model cache
mvt-project+mvt	tests/artifacts/ios_backup/83/83b9310399a905c7781f95580174f321cd18fd97	b16e97ddb03fb4682dbfe43c96fc81c18362af7d	-	-	c45814021a24be731f8b9132fb709a4ccfc0c4df	mvt-project+mvt/@c458140/tests/artifacts/ios_backup/83/83b9310399a905c7781f95580174f321cd18fd97	store
mvt-project+mvt	tests/artifacts/viber-database_test_no_table.sqlite	8240483ddb82046d15956fce8c2571083a3bcb08	-	-	1aa067f7a73305769a5e90c515cb5ebc60d0f263	mvt-project+mvt/@1aa067f/tests/artifacts/viber-database_test_no_table.sqlite	excluded: mvt's copy of a Viber store with the table ZVIBERMESSAGE dropped by hand for a test; not Core Data's writing
mwkirk+MWKCoreData	Tests/Stores/MWKCoreDataTests.sqlite	f7e2734678aeac95889e7deb3d7c4982df12e163	-	-	a499934c0f33f96c29a9361197c05c5d82692249	mwkirk+MWKCoreData/Tests/Stores/MWKCoreDataTests.sqlite	store
mwkirk+MWKCoreData	Tests/Stores/MWKCoreDataTests2.sqlite	f830ebc56b2fd8376d996774cb3d80ef34ba62af	-	-	a499934c0f33f96c29a9361197c05c5d82692249	mwkirk+MWKCoreData/Tests/Stores/MWKCoreDataTests2.sqlite	store
objcio+core-data	Migrations/MigrationsTests/Moody 2.moody	6e5ad408ef62510827eee2a5776b6cf04bba1c63	e69de29bb2d1d6434b8b29ae775ad8c2e48c5391	44897f09fe625fa425e4db9b892fb51f8ece315f	4f7127c55a5764c9eaa28c9999c2c334a7ad42a5	objcio+core-data/Migrations/MigrationsTests/Moody 2.moody	store
objcio+core-data	Migrations/MigrationsTests/Moody 3.moody	6b118d653e0f735f31ee12abe95e20e579d02829	e69de29bb2d1d6434b8b29ae775ad8c2e48c5391	31ab449f6d1328b4fee8d7cfd702d6c488c20b7a	4f7127c55a5764c9eaa28c9999c2c334a7ad42a5	objcio+core-data/Migrations/MigrationsTests/Moody 3.moody	store
objcio+core-data	Migrations/MigrationsTests/Moody 4.moody	800cbcf9a8491cfe9f3ceb8c034e36c5ec274feb	e69de29bb2d1d6434b8b29ae775ad8c2e48c5391	042e903deda0dc7a19b20a5d8467a37be2d270fc	4f7127c55a5764c9eaa28c9999c2c334a7ad42a5	objcio+core-data/Migrations/MigrationsTests/Moody 4.moody	store
objcio+core-data	Migrations/MigrationsTests/Moody 5.moody	2a089d493082eec3815cf8ab9ce3bbba5336839a	e69de29bb2d1d6434b8b29ae775ad8c2e48c5391	b5a8eeb99a140176e43be3a309fc21b7a716682d	4f7127c55a5764c9eaa28c9999c2c334a7ad42a5	objcio+core-data/Migrations/MigrationsTests/Moody 5.moody	store
objcio+core-data	Migrations/MigrationsTests/Moody.moody	46891de36133ade1bf3a1bacc7ad1ee6c6b8e19b	e69de29bb2d1d6434b8b29ae775ad8c2e48c5391	9be1438eb6985688e56e90b68eeeff453bd9bd79	4f7127c55a5764c9eaa28c9999c2c334a7ad42a5	objcio+core-data/Migrations/MigrationsTests/Moody.moody	store
RestKit+RestKit	Examples/RKTwitterCoreData/RKSeedDatabase.sqlite	bb23eae13ed462c729d20c9eb89f415f9c1961f6	-	-	5f56983d0d6b04a5657f5f952a6c9215ea3899d9	RestKit+RestKit/@5f56983/Examples/RKTwitterCoreData/RKSeedDatabase.sqlite	store
RestKit+RestKit	Examples/RKTwitterCoreData/RKSeedDatabase.sqlite	8fa35f8a7f78570602ab9d9c31e39e0487c45d33	-	-	b0c96ac2c3b1188cb3754399b13eb0e84715bfc6	RestKit+RestKit/@b0c96ac/Examples/RKTwitterCoreData/RKSeedDatabase.sqlite	store
RestKit+RestKit	Examples/RKTwitterCoreData/RKSeedDatabase.sqlite	96fce45e3799cb11214874f9001769b793a847be	-	-	b6d441241583bdfc3918daccb5ac87e51781e2db	RestKit+RestKit/Examples/RKTwitterCoreData/RKSeedDatabase.sqlite	store
RestKit+RestKit	Examples/RKTwitterCoreData/RKSeedDatabase.sqlite	f6af4cb0b48e3e0bd0cc0c8ac4a679587eec8fe1	-	-	f3c0995d5ef7de7b4e2b0904cfa928d5850ac17c	RestKit+RestKit/@f3c0995/Examples/RKTwitterCoreData/RKSeedDatabase.sqlite	store
RhetTbull+apple-notes-parser	tests/TestNoteStore.sqlite	0831dabf31cc18943263fec6bac6b33ed6b5c889	-	-	4a994a7a8fee57df83102f85646e930b0827098a	RhetTbull+apple-notes-parser/@4a994a7/tests/TestNoteStore.sqlite	excluded: written by apple-notes-parser's own test code, not Core Data: two tables and a Z_METADATA whose Z_PLIST is NULL, no Z_PRIMARYKEY (mrq opens it as a plain SQLite file)
RhetTbull+apple-notes-parser	tests/data/GroupContainers/macOS15-Sequioa/group.com.apple.notes/NoteStore.sqlite	08471a0d8d6a373a1b7cd836c87d09ff494f54a1	5ed3d1f3dfff8562a6d4152ce70fc4958d1c8722	2f53a7dfd4859a99ebacf69069fb80ab423f5c80	5cbff77e238c584cbe1bfae473bb6ee7ff9cc250	RhetTbull+apple-notes-parser/@5cbff77/tests/data/GroupContainers/macOS15-Sequioa/group.com.apple.notes/NoteStore.sqlite	store
RhetTbull+apple-notes-parser	tests/data/GroupContainers/macOS15-Sequioa/group.com.apple.notes/NoteStore.sqlite	86007ac6168f8068a09954c6172f5c5b2e59665f	-	-	aec617fcfe4c355ccf9bc4960fabb49ea8816e95	RhetTbull+apple-notes-parser/tests/data/GroupContainers/macOS15-Sequioa/group.com.apple.notes/NoteStore.sqlite	store
RhetTbull+apple-notes-parser	tests/data/GroupContainers/macOS26-Tahoe/group.com.apple.notes/NoteStore.sqlite	4cac4fcb6883a27869deb5f5fe71fa7ad321f3b1	cc746a61d9e93fc42f753075492f65175bd1e348	d9e903525a94caf5c1cca5fdaa066e5078d365a1	5cbff77e238c584cbe1bfae473bb6ee7ff9cc250	RhetTbull+apple-notes-parser/@5cbff77/tests/data/GroupContainers/macOS26-Tahoe/group.com.apple.notes/NoteStore.sqlite	store
RhetTbull+apple-notes-parser	tests/data/GroupContainers/macOS26-Tahoe/group.com.apple.notes/NoteStore.sqlite	5faabf7ac4a76450c49d2953a826a3204bcc1774	-	-	aec617fcfe4c355ccf9bc4960fabb49ea8816e95	RhetTbull+apple-notes-parser/tests/data/GroupContainers/macOS26-Tahoe/group.com.apple.notes/NoteStore.sqlite	store
RhetTbull+apple-notes-parser	tests/data/NoteStore-macOS-12-Monterey.sqlite	cefea10c1797f7a209ec47f0a9116aff4872fc72	-	-	9d1ad4c213c1cdf19cfae71d6a22fb4765f6213c	RhetTbull+apple-notes-parser/tests/data/NoteStore-macOS-12-Monterey.sqlite	store
RhetTbull+apple-notes-parser	tests/data/NoteStore-macOS-13-Ventura.sqlite	c4dda66067883c3c8fb666a246d5c674fab053fc	-	-	9d1ad4c213c1cdf19cfae71d6a22fb4765f6213c	RhetTbull+apple-notes-parser/tests/data/NoteStore-macOS-13-Ventura.sqlite	store
RhetTbull+apple-notes-parser	tests/data/NoteStore-macOS-14-Sonoma.sqlite	42a525b0c6aafede9709f5700d36748470935b84	-	-	0dc077c0cd89a5ef0de4cd5286f0cc6d2a17070a	RhetTbull+apple-notes-parser/tests/data/NoteStore-macOS-14-Sonoma.sqlite	store
RhetTbull+apple-notes-parser	tests/data/NoteStore-macOS-15-Seqoia.sqlite	3699de1fd4cbf0d29f8bd0a8c47415db9782f895	-	-	617d9728368f2912b392fa467ccef859405edeba	RhetTbull+apple-notes-parser/@617d972/tests/data/NoteStore-macOS-15-Seqoia.sqlite	store
RhetTbull+apple-notes-parser	tests/data/NoteStore-macOS-15-Seqoia.sqlite	1b0ed618a1b8652b9cab9ee4cf58b70ebfe99812	-	-	9d1ad4c213c1cdf19cfae71d6a22fb4765f6213c	RhetTbull+apple-notes-parser/tests/data/NoteStore-macOS-15-Seqoia.sqlite	store
RhetTbull+apple-notes-parser	tests/data/NoteStore-macOS-26-Tahoe.sqlite	ec8183513790c61b4f0b8d549f0e0b9a52e3d4e8	-	-	2d75b69e50f399a4de578553ff2ac5f9a37c7510	RhetTbull+apple-notes-parser/@2d75b69/tests/data/NoteStore-macOS-26-Tahoe.sqlite	store
RhetTbull+apple-notes-parser	tests/data/NoteStore-macOS-26-Tahoe.sqlite	6e86d7d011583cd74b3db08bdcd3263bf02f835c	-	-	9d1ad4c213c1cdf19cfae71d6a22fb4765f6213c	RhetTbull+apple-notes-parser/tests/data/NoteStore-macOS-26-Tahoe.sqlite	store
sergd2005+ResourcesManager	default.store	db54ed53be4788b6dbc8f632c87bcd2a37fad1ae	-	-	a14090c1250fc80b21578079c14c5ab1f7bc3d79	sergd2005+ResourcesManager/@a14090c/default.store	store
sergd2005+ResourcesManager	default.store	d755b5d6377e06aaf334e1c0920be5eab5840eff	b073565292656a0a2a44bc71e848e97a69e8dc29	48615cd0bc9308c84ab9c8f2f96c3e310dca144b	bc3d34e5c08add38f570b96a867440c91130d084	sergd2005+ResourcesManager/@bc3d34e/default.store	store
shamrockmuffin+case	CallHistory.storedata	9d0e7f9c7b2091e88d42a91658e54592c18ddd00	-	-	2c15221d45c9c3ee0fbaa56893d358c98162d5c4	shamrockmuffin+case/CallHistory.storedata	store
shamrockmuffin+case	CallHistoryTemp.storedata	640f8d5147a4cdef2403a7d6a36022e76e569aaa	-	-	2c15221d45c9c3ee0fbaa56893d358c98162d5c4	shamrockmuffin+case/CallHistoryTemp.storedata	store
smarterthanyou+fw-bobo	Accounts3.sqlite	c42614eadbc2ece90b7add5190565f56db724945	-	-	e243ab9f351b4d103680dc9fbfaff3b764ba3160	smarterthanyou+fw-bobo/@e243ab9/Accounts3.sqlite	store
Sunic+DigitalOrder	CoreData.sqlite	aadf9fb39f713361d2e84b992af7baa93b32397e	-	-	6d8419691b1182b518644b487bda289e85bdfe1b	Sunic+DigitalOrder/CoreData.sqlite	store
Sunic+DigitalOrder	build/Debug-iphonesimulator/Hotel.app/CoreData.sqlite	e94144a8282302b97e6710e74dd558d5ea63aac3	-	-	6d8419691b1182b518644b487bda289e85bdfe1b	Sunic+DigitalOrder/build/Debug-iphonesimulator/Hotel.app/CoreData.sqlite	store
varoujan+Accounts	Accounts3.sqlite	61541c2a04fc405168de2237733a808d4a44e474	d29cf1bc86f021986c7c92ba6bce7c07791a9565	82beb7e77c1f9f7be81d344f67e91c7c0608b3e8	b03f73fc1dce15c379dd95544987b06209ec5276	varoujan+Accounts/@b03f73f/Accounts3.sqlite	store
windspb+vv	Contacts.data	ee546dfaf02507d5fa50e4f226322e947d9068e2	-	-	dcce401178e6e04c48149a0aaef29a79e6562b66	windspb+vv/Contacts.data	store
windspb+vv	SecondaryStorage.data	7c2be9be3d086b5b569ff261cebb46997068f310	-	-	dcce401178e6e04c48149a0aaef29a79e6562b66	windspb+vv/SecondaryStorage.data	store
STORES

# plaso's test stores, flat, with their model caches inflated
while IFS=$'\t' read -r repo blob wal shm name; do
  plaso "$repo" "$blob" "$wal" "$shm" "$name"
done <<'PLASO'
log2timeline+plaso	719065727e2b9067f3512fc3b2902cdcc3daec68	-	-	Accounts3.sqlite
log2timeline+plaso	fb2cf4e8324876699e2a181d3ecba2edc271c060	-	-	DataUsage.sqlite
log2timeline+plaso	0f66563ece5b9899ec27e24121ac0d30638f1907	-	-	IMODb2.sqlite
log2timeline+plaso	07703c832ea2fdacfe2f179779a5836542cf4c3f	-	-	NoteStore.sqlite
log2timeline+plaso	74bd2f3ce9bb7792a488adfdcc7f6c34752a6895	-	-	RMAdminStore-Local.sqlite
log2timeline+plaso	adc33ed1a89bbef21bd8fe02ea1548a39facb0d2	-	-	kik.sqlite
log2timeline+plaso	18752530275e9bce702b933d1b270b80ad7f7bbb	-	-	netusage.sqlite
log2timeline+plaso	b55e2bf8010f2618ea582795784db606b06b9158	-	-	NotesV7.storedata
log2timeline+plaso	a50f44c5a072992031155deafee49cef685d8734	-	-	knowledgec-10.13.db
log2timeline+plaso	d9ba99d2a9f31ccd29e60434d5cdaea2c7bf678e	-	-	knowledgec-10.14.db
PLASO

# model folders: repo, folder in repo (at HEAD), destination under models/
while IFS=$'\t' read -r repo path dest; do
  model "$repo" "$path" "$dest"
done <<'MODELS'
JohnEstropia+CoreStore	CoreStoreTests/Model.xcdatamodeld	CoreStore/Model.xcdatamodeld
JohnEstropia+CoreStore	Demo/Sources/Demos/Advanced/EvolutionDemo/Advanced.EvolutionDemo.V1.xcdatamodeld	CoreStore/Advanced.EvolutionDemo.V1.xcdatamodeld
JohnEstropia+CoreStore	Demo/Sources/Demos/Advanced/EvolutionDemo/Advanced.EvolutionDemo.V2.xcdatamodeld	CoreStore/Advanced.EvolutionDemo.V2.xcdatamodeld
JohnEstropia+CoreStore	Demo/Sources/Demos/Advanced/EvolutionDemo/Advanced.EvolutionDemo.xcdatamodeld	CoreStore/Advanced.EvolutionDemo.xcdatamodeld
JohnEstropia+CoreStore	Demo/Sources/Demos/Classic/ColorsDemo/Classic.ColorsDemo.xcdatamodeld	CoreStore/Classic.ColorsDemo.xcdatamodeld
magicalpanda+MagicalRecord	Samples/iOS/Application/Models/Recipes.xcdatamodeld	MagicalRecord/Recipes.xcdatamodeld
magicalpanda+MagicalRecord	Tests/Fixtures/TestModel.xcdatamodeld	MagicalRecord/TestModel.xcdatamodeld
RestKit+RestKit	Examples/RKSearchExample/RKSearchExample/RKSearchExampleModel.xcdatamodeld	RestKit/RKSearchExampleModel.xcdatamodeld
RestKit+RestKit	Examples/RKTwitterCoreData/Resources/RKTwitterCoreData.xcdatamodel	RestKit/RKTwitterCoreData.xcdatamodel
RestKit+RestKit	Resources/RestKitCoreData.xcdatamodeld	RestKit/RestKitCoreData.xcdatamodeld
RestKit+RestKit	Tests/Models/Data Model.xcdatamodel	RestKit/Data Model.xcdatamodel
RestKit+RestKit	Tests/Models/VersionedModel.xcdatamodeld	RestKit/VersionedModel.xcdatamodeld
mastodon+mastodon-ios	MastodonSDK/Sources/CoreDataStack/CoreData.xcdatamodeld	mastodon-ios/CoreData.xcdatamodeld
duckduckgo+BrowserServicesKit	Sources/Bookmarks/BookmarksModel.xcdatamodeld	BrowserServicesKit/BookmarksModel.xcdatamodeld
duckduckgo+BrowserServicesKit	Sources/BrowserServicesKit/SmarterEncryption/Store/HTTPSUpgrade.xcdatamodeld	BrowserServicesKit/HTTPSUpgrade.xcdatamodeld
duckduckgo+BrowserServicesKit	Sources/DDGSync/SyncMetadata.xcdatamodeld	BrowserServicesKit/SyncMetadata.xcdatamodeld
duckduckgo+BrowserServicesKit	Sources/History/CoreData/BrowsingHistory.xcdatamodeld	BrowserServicesKit/BrowsingHistory.xcdatamodeld
duckduckgo+BrowserServicesKit	Sources/PrivacyStats/PrivacyStats.xcdatamodeld	BrowserServicesKit/PrivacyStats.xcdatamodeld
duckduckgo+BrowserServicesKit	Sources/RemoteMessaging/CoreData/RemoteMessaging.xcdatamodeld	BrowserServicesKit/RemoteMessaging.xcdatamodeld
Automattic+simplenote-ios	Simplenote/Simplenote.xcdatamodeld	simplenote-ios/Simplenote.xcdatamodeld
LoopKit+LoopKit	LoopKit/DeviceManager/DeviceLog/DeviceLog.xcdatamodeld	LoopKit/DeviceLog.xcdatamodeld
LoopKit+LoopKit	LoopKit/Persistence/Model.xcdatamodeld	LoopKit/Model.xcdatamodeld
ChristianKienle+Core-Data-Editor	iOS Example/iOS Example/iOS_Example.xcdatamodel	Core-Data-Editor/iOS_Example.xcdatamodel
rentzsch+mogenerator	contributed templates/Nikita Zhuk/ponso/sample project/PonsoTest/MyModel.xcdatamodeld	mogenerator/MyModel.xcdatamodeld
rentzsch+mogenerator	contributed templates/Tyrone Trevorrow/ponso/sample project/PonsoTest/MyModel.xcdatamodeld	mogenerator/2/MyModel.xcdatamodeld
rentzsch+mogenerator	test/MogenSwiftTest/MogenSwiftTest/MogenSwiftTest.xcdatamodeld	mogenerator/MogenSwiftTest.xcdatamodeld
rentzsch+mogenerator	test/test.xcdatamodel	mogenerator/test.xcdatamodel
alemar11+CoreDataPlus	Tests/Resources/SampleModel/SampleModel.xcdatamodeld	CoreDataPlus/SampleModel.xcdatamodeld
alemar11+CoreDataPlus	Tests/Resources/SampleModel3/SampleModel3.xcdatamodeld	CoreDataPlus/SampleModel3.xcdatamodeld
wibosco+CoreDataMigration-Example	CoreDataMigration-Example/CoreData/Model/CoreDataMigration_Example.xcdatamodeld	CoreDataMigration-Example/CoreDataMigration_Example.xcdatamodeld
jeffreybergier+CoreDataMigrationTests	CoreDataMigration/CoreDataMigration/Model.xcdatamodeld	CoreDataMigrationTests/Model.xcdatamodeld
contentful+contentful-persistence.swift	Tests/ContentfulPersistenceTests/ComplexTest.xcdatamodeld	contentful-persistence.swift/ComplexTest.xcdatamodeld
contentful+contentful-persistence.swift	Tests/ContentfulPersistenceTests/LocalizationTest.xcdatamodeld	contentful-persistence.swift/LocalizationTest.xcdatamodeld
contentful+contentful-persistence.swift	Tests/ContentfulPersistenceTests/RichTextDocumentTransformableTest.xcdatamodeld	contentful-persistence.swift/RichTextDocumentTransformableTest.xcdatamodeld
contentful+contentful-persistence.swift	Tests/ContentfulPersistenceTests/Test.xcdatamodeld	contentful-persistence.swift/Test.xcdatamodeld
greenisus+corekit	CoreKitTests/Model.xcdatamodeld	corekit/Model.xcdatamodeld
greenisus+corekit	CoreKitTests/Test.xcdatamodel	corekit/Test.xcdatamodel
greenisus+corekit	examples/Twitter/Twitter/Model.xcdatamodeld	corekit/2/Model.xcdatamodeld
greenisus+corekit	examples/Twitter/Twitter/Models.xcdatamodeld	corekit/Models.xcdatamodeld
christoph-fassbach+CoreDataTest	CoreDataContactsAndGroups.xcdatamodeld	CoreDataTest/CoreDataContactsAndGroups.xcdatamodeld
MODELS

# compiled models beside the stores (HEAD)
while IFS=$'\t' read -r repo path blob; do
  mom "$repo" "$path" "$blob"
done <<'MOMS'
Sunic+DigitalOrder	build/Debug-iphonesimulator/Hotel.app/Hotel.mom	63e4a073c2e396ec9f29c980f70a8485487d90fb
alemar11+CoreDataPlus	Tests/Resources/SampleModel/Fixtures/SampleModel.momd/SampleModel.mom	e23c89856d3a78c57bce62443aaa666d75c8b8da
alemar11+CoreDataPlus	Tests/Resources/SampleModel/Fixtures/SampleModel.momd/SampleModel.omo	79632297b70e477b1b3372c2bacd4828933bcd1e
alemar11+CoreDataPlus	Tests/Resources/SampleModel/Fixtures/SampleModel.momd/SampleModel2.mom	80c1e1ea44f8d3dd7822765d15d59db996645548
alemar11+CoreDataPlus	Tests/Resources/SampleModel/Fixtures/SampleModel.momd/SampleModel3.mom	53a4e42bbead41cc6d3b905438988288b4b3c73e
alemar11+CoreDataPlus	Tests/Resources/SampleModel3/Fixtures/SampleModel3.momd/SampleModel3.mom	c1aae8072bdbe19f1a456c46bd4b940b304765b4
alemar11+CoreDataPlus	Tests/Resources/SampleModel3/Fixtures/SampleModel3.momd/SampleModel3.omo	0c2006eb4e4e9136955ccea9a1d0cff9c2286fbf
alemar11+CoreDataPlus	Tests/Resources/SampleModel3/Fixtures/SampleModel3.momd/SampleModel3_v2.mom	6cd720ded1db231fcbfe052d6671aa1e9abbe5db
alemar11+CoreDataPlus	Tests/Resources/SampleModel3/Fixtures/SampleModel3.momd/SampleModel3_v3.mom	5ce93d0513d7942fe62d78a7cf1b634d601b7f94
MOMS

manifest
