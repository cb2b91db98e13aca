#ifndef CSVFREEZE_CSQLITE_SHIM_H
#define CSVFREEZE_CSQLITE_SHIM_H
/* SQLite for the SQL module. Swift cannot import SQLite's destructor macros
   (SQLITE_TRANSIENT is a cast of -1) nor call its variadic configuration functions: the
   prefixed helpers below stand in for them. The two structs are the "subclasses" of
   sqlite3_vtab and sqlite3_vtab_cursor that SQLite's virtual-table interface expects:
   SQLite owns the memory (sqlite3_malloc), and `owner` points at the Swift object. Glue
   only: the byte scans SQL uses are CFieldScan's. */
#include <sqlite3.h>

typedef struct cf_sql_table {
    sqlite3_vtab base;
    void *owner;
} cf_sql_table;

typedef struct cf_sql_cursor {
    sqlite3_vtab_cursor base;
    void *owner;
} cf_sql_cursor;

/* Text SQLite copies at once: the bytes behind it are reused for the next row. */
static inline void cf_sql_result_text(sqlite3_context *context, const void *bytes, int length) {
    sqlite3_result_text(context, (const char *)bytes, length, SQLITE_TRANSIENT);
}

/* The virtual tables read files and have no side effects: usable from views and triggers. */
static inline int cf_sql_vtab_innocuous(sqlite3 *db) { return sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS); }

/* A copy of `text` in memory SQLite frees (error messages, idxStr). */
static inline char *cf_sql_strdup(const char *text) { return sqlite3_mprintf("%s", text); }

/* Shuts what a query could write or load: defensive mode (SQL cannot corrupt a database
   file), no extensions (load_extension() nor the C call), no triggers, no views, no FTS3
   tokenizer pointers, an untrusted schema. Returns SQLITE_OK when every setting took. */
static inline int cf_sql_lock_down(sqlite3 *db) {
    int status = SQLITE_OK;
    if (sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0) != SQLITE_OK) status = SQLITE_ERROR;
    if (sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, (int *)0) != SQLITE_OK) status = SQLITE_ERROR;
    if (sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, (int *)0) != SQLITE_OK) status = SQLITE_ERROR;
    if (sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, (int *)0) != SQLITE_OK) status = SQLITE_ERROR;
    if (sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 0, (int *)0) != SQLITE_OK) status = SQLITE_ERROR;
    if (sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)0) != SQLITE_OK) status = SQLITE_ERROR;
    return status;
}

/* A database file read as a table source: as cf_sql_lock_down, but views stay on (a view
   of the file is one of its tables; with an untrusted schema it may call only innocuous
   functions). Returns SQLITE_OK when every setting took. */
static inline int cf_sql_lock_down_file(sqlite3 *db) {
    int status = SQLITE_OK;
    if (sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0) != SQLITE_OK) status = SQLITE_ERROR;
    if (sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, (int *)0) != SQLITE_OK) status = SQLITE_ERROR;
    if (sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, (int *)0) != SQLITE_OK) status = SQLITE_ERROR;
    if (sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 0, (int *)0) != SQLITE_OK) status = SQLITE_ERROR;
    if (sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)0) != SQLITE_OK) status = SQLITE_ERROR;
    return status;
}

/* Views on or off for a connection (on again once a database file is attached). */
static inline int cf_sql_enable_views(sqlite3 *db, int on) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, on, (int *)0);
}

#endif
