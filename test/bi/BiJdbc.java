// Reads queries through the PostgreSQL JDBC driver (pgjdbc) as a BI tool
// does, for test/bi_drivers.sh (docs/reports.md#bi-tools).
//
//   java -cp /usr/share/java/postgresql.jar test/bi/BiJdbc.java URL USER PASSWORD QUERIES OUTDIR
//
// QUERIES holds one query a line: NAME, a tab, the SQL.  For each, in a
// transaction of its own (so that now() is one instant for the whole
// query), it writes OUTDIR/NAME.meta: the transaction's now() in UTC, then
// a line per column: name, kind, java.sql.Types code, JDBCType name, the
// driver's type name.  The kind is how the value is read and compared:
// text, int, numeric, float, bool, date, timestamptz, timestamp; "bad" for a
// type a BI tool cannot map (OTHER, ARRAY, STRUCT, JAVA_OBJECT, binary ...).
// OUTDIR/NAME.rows holds the values read through the typed getters,
// rendered as psql prints them (test/bi/compare.c says how they are
// compared): fields separated by 0x1f, rows by 0x1e, NULL as \N.
import java.io.*;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.sql.*;
import java.time.*;
import java.util.*;

public class BiJdbc {
    static final String FS = "\u001f", RS = "\u001e", NULL = "\\N";

    static String kind(int type, String typeName) {
        switch (type) {
            case Types.CHAR: case Types.VARCHAR: case Types.LONGVARCHAR:
            case Types.NCHAR: case Types.NVARCHAR: case Types.LONGNVARCHAR:
                return "text";
            case Types.BIGINT: case Types.INTEGER: case Types.SMALLINT: case Types.TINYINT:
                return "int";
            case Types.NUMERIC: case Types.DECIMAL:
                return "numeric";
            case Types.DOUBLE: case Types.FLOAT: case Types.REAL:
                return "float";
            case Types.BOOLEAN: case Types.BIT:
                // pgjdbc reports bool as BIT; a bit(n) column is not a boolean
                return "bool".equals(typeName) ? "bool" : "bad";
            case Types.DATE:
                return "date";
            case Types.TIMESTAMP: case Types.TIMESTAMP_WITH_TIMEZONE:
                return "timestamptz".equals(typeName) ? "timestamptz" : "timestamp";
            default:
                return "bad";
        }
    }

    // PostgreSQL's text form of a timestamp: seconds, then the fraction
    // without its trailing zeros
    static String pgTime(LocalDateTime t) {
        String s = String.format("%04d-%02d-%02d %02d:%02d:%02d", t.getYear(), t.getMonthValue(),
                                 t.getDayOfMonth(), t.getHour(), t.getMinute(), t.getSecond());
        int micros = t.getNano() / 1000;
        if (micros != 0) {
            String f = String.format("%06d", micros).replaceAll("0+$", "");
            s += "." + f;
        }
        return s;
    }

    static String render(ResultSet rs, int i, String kind) throws SQLException {
        switch (kind) {
            case "int": {
                long v = rs.getLong(i);
                return rs.wasNull() ? NULL : Long.toString(v);
            }
            case "float": {
                double v = rs.getDouble(i);
                return rs.wasNull() ? NULL : Double.toString(v);
            }
            case "numeric": {
                BigDecimal v = rs.getBigDecimal(i);
                return v == null ? NULL : v.toPlainString();
            }
            case "bool": {
                boolean v = rs.getBoolean(i);
                return rs.wasNull() ? NULL : (v ? "t" : "f");
            }
            case "date": {
                LocalDate v = rs.getObject(i, LocalDate.class);
                return v == null ? NULL : v.toString();
            }
            case "timestamptz": {
                OffsetDateTime v = rs.getObject(i, OffsetDateTime.class);
                return v == null ? NULL : pgTime(v.withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime()) + "+00";
            }
            case "timestamp": {
                LocalDateTime v = rs.getObject(i, LocalDateTime.class);
                return v == null ? NULL : pgTime(v);
            }
            case "text": {
                String v = rs.getString(i);
                return v == null ? NULL : v;
            }
            default: {
                // a type no getter above reads: its text, so that the values
                // are still compared
                String v = rs.getString(i);
                return v == null ? NULL : v;
            }
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: BiJdbc URL USER PASSWORD QUERIES OUTDIR");
            System.exit(2);
        }
        Properties p = new Properties();
        p.setProperty("user", args[1]);
        p.setProperty("password", args[2]);
        int failed = 0;
        try (Connection c = DriverManager.getConnection(args[0], p)) {
            c.setAutoCommit(false);
            DatabaseMetaData md = c.getMetaData();
            System.out.println("# JDBC: " + md.getDriverName() + " " + md.getDriverVersion()
                               + ", server " + md.getDatabaseProductVersion());
            for (String line : Files.readAllLines(Paths.get(args[3]), StandardCharsets.UTF_8)) {
                if (line.isEmpty()) continue;
                int tab = line.indexOf('\t');
                String name = line.substring(0, tab), sql = line.substring(tab + 1);
                StringBuilder meta = new StringBuilder(), rows = new StringBuilder();
                try (Statement st = c.createStatement()) {
                    try (ResultSet r = st.executeQuery("SELECT pg_catalog.timezone('UTC', pg_catalog.now())::text")) {
                        r.next();
                        meta.append(r.getString(1)).append('\n');
                    }
                    try (ResultSet rs = st.executeQuery(sql)) {
                        ResultSetMetaData m = rs.getMetaData();
                        int n = m.getColumnCount();
                        String[] kinds = new String[n + 1];
                        for (int i = 1; i <= n; i++) {
                            int t = m.getColumnType(i);
                            String tn = m.getColumnTypeName(i), jt;
                            try { jt = JDBCType.valueOf(t).getName(); } catch (IllegalArgumentException e) { jt = "unknown"; }
                            kinds[i] = kind(t, tn);
                            meta.append(m.getColumnLabel(i)).append('\t').append(kinds[i]).append('\t')
                                .append(t).append('\t').append(jt).append('\t').append(tn).append('\n');
                        }
                        while (rs.next()) {
                            for (int i = 1; i <= n; i++) {
                                if (i > 1) rows.append(FS);
                                rows.append(render(rs, i, kinds[i]));
                            }
                            rows.append(RS);
                        }
                    }
                    c.commit();
                } catch (SQLException e) {
                    c.rollback();
                    failed++;
                    meta.setLength(0);
                    meta.append("ERROR ").append(e.getSQLState()).append(' ')
                        .append(e.getMessage().replace('\n', ' ')).append('\n');
                }
                Files.write(Paths.get(args[4], name + ".meta"), meta.toString().getBytes(StandardCharsets.UTF_8));
                Files.write(Paths.get(args[4], name + ".rows"), rows.toString().getBytes(StandardCharsets.UTF_8));
            }
        }
        System.exit(failed == 0 ? 0 : 1);
    }
}
