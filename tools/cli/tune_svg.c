/* SPDX-License-Identifier: Apache-2.0 */
/* The tuner's SVG report: a panel per configuration (primitive, key size, value size),
 * throughput against VT, one line per NT, the default shape and the winner marked, rejected
 * tiles as marks on the VT axis. Self-contained: no script, no web font. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tune.h"
#include "tune_text.h"

static int same_config(const tune_point *a, const tune_point *b)
{
    return a->primitive == b->primitive && a->key_size == b->key_size &&
           a->value_size == b->value_size;
}

/* Rejected points are drawn as marks on the VT axis; pending ones not at all. */
static int is_rejected(const tune_point *p)
{
    return p->outcome != TUNE_MEASURED && p->outcome != TUNE_PENDING;
}

/* ---------------------------------------------------------------- SVG */

/* Layout, in pixels: panels in a grid below the title line. */
enum {
    SVG_COLUMNS = 3,
    SVG_MARGIN = 16,
    SVG_TITLE_H = 40,
    PANEL_W = 440,
    PANEL_H = 300,
    PLOT_LEFT = 56,   /* room for the score labels */
    PLOT_RIGHT = 18,
    PLOT_TOP = 62,    /* panel title and legend */
    PLOT_BOTTOM = 46, /* VT labels and axis name */
    PLOT_PAD = 12,    /* keeps the first and last VT off the frame */
    MAX_VT_TICKS = 14
};

/* One color per NT, the same in every panel. */
static const char *const nt_palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                         "#9467bd", "#8c564b", "#e377c2", "#17becf"};
#define NT_COLORS (sizeof nt_palette / sizeof nt_palette[0])

/* Text for XML: markup characters escaped, control characters (not allowed in XML 1.0)
 * turned into spaces. At most `max` bytes of s. */
static void xml_text(tune_sbuf *b, const char *s, size_t max)
{
    for (size_t i = 0; s != NULL && i < max && s[i] != '\0'; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '&': tune_sb_printf(b, "&amp;"); break;
        case '<': tune_sb_printf(b, "&lt;"); break;
        case '>': tune_sb_printf(b, "&gt;"); break;
        case '"': tune_sb_printf(b, "&quot;"); break;
        case '\'': tune_sb_printf(b, "&apos;"); break;
        default: tune_sb_putc(b, c < 0x20 ? ' ' : (char)c); break;
        }
    }
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Sorts v and drops repeats; returns the new length. */
static size_t sort_unique(int *v, size_t n)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof *v, cmp_int);
    size_t out = 1;
    for (size_t i = 1; i < n; i++)
        if (v[i] != v[out - 1])
            v[out++] = v[i];
    return out;
}

static double point_score(const tune_point *p)
{
    return tune_finite_or_zero(p->score);
}

/* A y axis from 0 that holds `max`: a round step (1, 2, 2.5 or 5 times a power of ten) with
 * 3 to 5 intervals, so 4 to 6 labeled gridlines. */
static double axis_step(double max, int *intervals)
{
    if (!(max > 1e-3))
        max = 1e-3;
    double raw = max / 5, p = 1;
    while (p > raw)
        p /= 10;
    while (p * 10 <= raw)
        p *= 10;
    static const double mult[] = {1, 2, 2.5, 5, 10};
    double step = p * 10;
    for (size_t i = 0; i < sizeof mult / sizeof mult[0]; i++)
        if (mult[i] * p >= raw) {
            step = mult[i] * p;
            break;
        }
    int n = 1;
    while (n * step < max * (1 - 1e-12))
        n++;
    *intervals = n;
    return step;
}

/* Where one panel's plot area lies and how VT and score map onto it. */
typedef struct plot {
    double x0, x1, y0, y1; /* left, right, top, bottom */
    int vt_min, vt_max;
    double top;            /* score at y0 */
    int intervals;         /* between the score gridlines */
} plot;

static double plot_x(const plot *pl, int vt)
{
    if (pl->vt_max == pl->vt_min)
        return (pl->x0 + pl->x1) / 2;
    double w = pl->x1 - pl->x0 - 2 * PLOT_PAD;
    return pl->x0 + PLOT_PAD + w * (vt - pl->vt_min) / (pl->vt_max - pl->vt_min);
}

static double plot_y(const plot *pl, double score)
{
    return pl->y1 - (pl->y1 - pl->y0) * score / pl->top;
}

static const char *nt_color(const int *all_nts, size_t nnt, int nt)
{
    for (size_t i = 0; i < nnt; i++)
        if (all_nts[i] == nt)
            return nt_palette[i % NT_COLORS];
    return "#000000";
}

/* A tooltip for one point, shown by viewers on hover. */
static void svg_point_title(tune_sbuf *b, const tune_point *p)
{
    tune_sb_printf(b, "<title>NT %d VT %d: ", p->nt, p->vt);
    if (p->outcome == TUNE_MEASURED)
        tune_sb_printf(b, "%.3g Gkeys/s", point_score(p));
    else
        tune_sb_printf(b, "%s", tune_outcome_name(p->outcome));
    if (p->registers >= 0)
        tune_sb_printf(b, ", %d registers", p->registers);
    if (p->is_default)
        tune_sb_printf(b, ", default");
    if (p->note[0] != '\0') {
        tune_sb_printf(b, " (");
        xml_text(b, p->note, sizeof p->note);
        tune_sb_putc(b, ')');
    }
    tune_sb_printf(b, "</title>");
}

static void svg_hollow_square(tune_sbuf *b, double x, double y)
{
    tune_sb_printf(b,
                   "<rect x=\"%.1f\" y=\"%.1f\" width=\"11\" height=\"11\" fill=\"none\" "
                   "stroke=\"#222\" stroke-width=\"1.5\"/>\n",
                   x - 5.5, y - 5.5);
}

static void svg_ring(tune_sbuf *b, double x, double y)
{
    tune_sb_printf(b,
                   "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"8\" fill=\"none\" stroke=\"#000\" "
                   "stroke-width=\"2.5\"/>\n",
                   x, y);
}

static void svg_cross(tune_sbuf *b, double x, double y, double r)
{
    tune_sb_printf(b, "<path d=\"M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f\"/>", x - r, y - r, x + r,
                   y + r, x - r, y + r, x + r, y - r);
}

/* The legend row under the panel title: a swatch per NT, then the two markers. */
static void svg_legend(tune_sbuf *b, double x, double y, const int *nts, size_t n,
                       const int *all_nts, size_t nall)
{
    for (size_t i = 0; i < n; i++, x += 66) {
        tune_sb_printf(b,
                       "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                       "stroke-width=\"2.5\"/>",
                       x, y - 4, x + 14, y - 4, nt_color(all_nts, nall, nts[i]));
        tune_sb_printf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">NT=%d</text>\n", x + 18, y,
                       nts[i]);
    }
    x += 6;
    svg_hollow_square(b, x + 6, y - 4);
    tune_sb_printf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">default</text>\n", x + 15, y);
    x += 64;
    svg_ring(b, x + 8, y - 4);
    tune_sb_printf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">best</text>\n", x + 20, y);
}

/* Gridlines and labels of both axes; `ticks` are the VTs to label. */
static void svg_axes(tune_sbuf *b, const plot *pl, const int *ticks, size_t nticks, int measured)
{
    if (measured) {
        for (int k = 0; k <= pl->intervals; k++) {
            double v = pl->top * k / pl->intervals;
            double y = plot_y(pl, v);
            tune_sb_printf(b,
                           "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                           "stroke=\"#e3e3e3\"/>"
                           "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%g"
                           "</text>\n",
                           pl->x0, y, pl->x1, y, pl->x0 - 6, y + 4, v);
        }
        tune_sb_printf(b,
                       "<text transform=\"translate(%.1f %.1f) rotate(-90)\" font-size=\"11\" "
                       "text-anchor=\"middle\">Gkeys/s</text>\n",
                       pl->x0 - 42, (pl->y0 + pl->y1) / 2);
    }
    tune_sb_printf(b,
                   "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555\"/>\n",
                   pl->x0, pl->y1, pl->x1, pl->y1);
    size_t every = (nticks + MAX_VT_TICKS - 1) / MAX_VT_TICKS;
    for (size_t i = 0; i < nticks; i += every > 0 ? every : 1) {
        double x = plot_x(pl, ticks[i]);
        tune_sb_printf(b,
                       "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555\"/>"
                       "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">%d"
                       "</text>\n",
                       x, pl->y1, x, pl->y1 + 4, x, pl->y1 + 17, ticks[i]);
    }
    tune_sb_printf(b,
                   "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">"
                   "VT</text>\n",
                   (pl->x0 + pl->x1) / 2, pl->y1 + 34);
}

static int cmp_vt(const void *a, const void *b)
{
    const tune_point *x = *(const tune_point *const *)a, *y = *(const tune_point *const *)b;
    return (x->vt > y->vt) - (x->vt < y->vt);
}

/* Scratch space shared by the panels, each array `count` long. */
typedef struct panel_scratch {
    const tune_point **pts; /* this configuration's points */
    int *vts, *nts;
} panel_scratch;

/* One panel: the configuration of points[first] at (px, py). */
static void svg_panel(tune_sbuf *b, double px, double py, const tune_point *points, size_t count,
                      size_t first, const int *all_nts, size_t nall, panel_scratch *s)
{
    const tune_point *cfg = &points[first];
    size_t n = 0, nvt = 0, nnt = 0;
    const tune_point *best = NULL;
    for (size_t i = first; i < count; i++) {
        const tune_point *p = &points[i];
        if (!same_config(p, cfg) || p->outcome == TUNE_PENDING)
            continue;
        s->pts[n++] = p;
        s->vts[nvt++] = p->vt;
        if (p->outcome == TUNE_MEASURED) {
            s->nts[nnt++] = p->nt;
            if (best == NULL || point_score(p) > point_score(best))
                best = p;
        }
    }
    /* Sorted by VT, so each NT's line runs left to right. */
    qsort(s->pts, n, sizeof *s->pts, cmp_vt);
    nvt = sort_unique(s->vts, nvt);
    nnt = sort_unique(s->nts, nnt);

    tune_sb_printf(b,
                   "<g>\n<rect x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%d\" fill=\"#fcfcfc\" "
                   "stroke=\"#cccccc\"/>\n",
                   px, py, PANEL_W, PANEL_H);
    tune_sb_printf(b,
                   "<text x=\"%.1f\" y=\"%.1f\" font-size=\"14\" font-weight=\"bold\" "
                   "xml:space=\"preserve\">",
                   px + 12, py + 22);
    xml_text(b, tune_primitive_label(cfg->primitive), SIZE_MAX);
    tune_sb_printf(b, "  key %zu B  value %zu B</text>\n", cfg->key_size, cfg->value_size);
    svg_legend(b, px + 14, py + 44, s->nts, nnt, all_nts, nall);

    plot pl = {px + PLOT_LEFT, px + PANEL_W - PLOT_RIGHT, py + PLOT_TOP, py + PANEL_H - PLOT_BOTTOM,
               nvt > 0 ? s->vts[0] : 1, nvt > 0 ? s->vts[nvt - 1] : 1, 1, 1};
    /* Headroom over the best score leaves room for its label above it. */
    if (best != NULL)
        pl.top = axis_step(point_score(best) * 1.12, &pl.intervals) * pl.intervals;
    svg_axes(b, &pl, s->vts, nvt, best != NULL);

    if (best == NULL)
        tune_sb_printf(b,
                       "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" fill=\"#777\" "
                       "text-anchor=\"middle\">no measured points</text>\n",
                       (pl.x0 + pl.x1) / 2, (pl.y0 + pl.y1) / 2);

    /* Rejected shapes: grey marks on the VT axis, showing where each NT ran out. */
    tune_sb_printf(b, "<g stroke=\"#999\" stroke-width=\"1.5\">");
    for (size_t i = 0; i < n; i++)
        if (is_rejected(s->pts[i])) {
            tune_sb_printf(b, "<g>");
            svg_point_title(b, s->pts[i]);
            svg_cross(b, plot_x(&pl, s->pts[i]->vt), pl.y1, 3.5);
            tune_sb_printf(b, "</g>");
        }
    tune_sb_printf(b, "</g>\n");

    for (size_t t = 0; t < nnt; t++) {
        const char *color = nt_color(all_nts, nall, s->nts[t]);
        tune_sb_printf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
                          "points=\"", color);
        for (size_t i = 0; i < n; i++)
            if (s->pts[i]->outcome == TUNE_MEASURED && s->pts[i]->nt == s->nts[t])
                tune_sb_printf(b, "%.1f,%.1f ", plot_x(&pl, s->pts[i]->vt),
                               plot_y(&pl, point_score(s->pts[i])));
        tune_sb_printf(b, "\"/>\n<g fill=\"%s\">", color);
        for (size_t i = 0; i < n; i++)
            if (s->pts[i]->outcome == TUNE_MEASURED && s->pts[i]->nt == s->nts[t]) {
                tune_sb_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\">",
                               plot_x(&pl, s->pts[i]->vt), plot_y(&pl, point_score(s->pts[i])));
                svg_point_title(b, s->pts[i]);
                tune_sb_printf(b, "</circle>");
            }
        tune_sb_printf(b, "</g>\n");
    }

    /* The default shape: on its point when measured, else on the axis beside its mark. */
    for (size_t i = 0; i < n; i++)
        if (s->pts[i]->is_default) {
            const tune_point *p = s->pts[i];
            svg_hollow_square(b, plot_x(&pl, p->vt),
                              p->outcome == TUNE_MEASURED ? plot_y(&pl, point_score(p)) : pl.y1);
        }

    if (best != NULL) {
        double x = plot_x(&pl, best->vt), y = plot_y(&pl, point_score(best));
        svg_ring(b, x, y);
        /* Keep the label inside the plot, with a white halo so lines under it stay apart. */
        const char *anchor = x > pl.x1 - 50 ? "end" : x < pl.x0 + 50 ? "start" : "middle";
        double ly = y - pl.y0 < 16 ? y + 24 : y - 13;
        tune_sb_printf(b,
                       "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" font-weight=\"bold\" "
                       "text-anchor=\"%s\" stroke=\"#fff\" stroke-width=\"3\" "
                       "paint-order=\"stroke\">best %dx%d</text>\n",
                       x, ly, anchor, best->nt, best->vt);
    }
    tune_sb_printf(b, "</g>\n");
}

/* The title line: what was measured, where and how. */
static void svg_title(tune_sbuf *b, const tune_run_info *info)
{
    tune_sb_printf(b, "<text x=\"%d\" y=\"%d\" font-size=\"16\" font-weight=\"bold\">"
                      "mergejit tune: ",
                   SVG_MARGIN, SVG_MARGIN + 10);
    xml_text(b, info->device != NULL ? info->device : "unknown device", SIZE_MAX);
    tune_sb_printf(b, ", sm_%d, sizes ", info->sm);
    int sizes = tune_size_count(info);
    for (int s = 0; s < sizes; s++)
        tune_sb_printf(b, "%s2^%d", s > 0 ? ", " : "", info->log2_sizes[s]);
    tune_sb_printf(b, ", %d reps", info->reps);
    if (info->quick)
        tune_sb_printf(b, ", quick");
    if (info->version != NULL) {
        tune_sb_printf(b, " (mergejit ");
        xml_text(b, info->version, SIZE_MAX);
        tune_sb_putc(b, ')');
    }
    tune_sb_printf(b, "</text>\n");
}

int tune_write_svg(const char *path, const tune_run_info *info, const tune_point *points,
                   size_t count)
{
    panel_scratch s = {malloc((count + 1) * sizeof *s.pts), malloc((count + 1) * sizeof(int)),
                       malloc((count + 1) * sizeof(int))};
    size_t *firsts = malloc((count + 1) * sizeof *firsts);
    int *all_nts = malloc((count + 1) * sizeof *all_nts);
    tune_sbuf b = {0};
    if (s.pts == NULL || s.vts == NULL || s.nts == NULL || firsts == NULL || all_nts == NULL)
        b.failed = 1;

    /* Configurations in order of first appearance, and every measured NT for the colors. */
    size_t nconfig = 0, nall = 0;
    for (size_t i = 0; !b.failed && i < count; i++) {
        size_t c = 0;
        while (c < nconfig && !same_config(&points[firsts[c]], &points[i]))
            c++;
        if (c == nconfig)
            firsts[nconfig++] = i;
        if (points[i].outcome == TUNE_MEASURED)
            all_nts[nall++] = points[i].nt;
    }
    if (!b.failed)
        nall = sort_unique(all_nts, nall);

    size_t cols = nconfig < SVG_COLUMNS ? (nconfig > 0 ? nconfig : 1) : SVG_COLUMNS;
    size_t rows = (nconfig + cols - 1) / cols;
    int width = (int)(SVG_MARGIN + cols * (PANEL_W + SVG_MARGIN));
    int height = (int)(SVG_TITLE_H + (rows > 0 ? rows : 1) * (PANEL_H + SVG_MARGIN));
    tune_sb_printf(&b,
                   "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                   "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n"
                   "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n",
                   width, height, width, height);
    svg_title(&b, info);
    if (nconfig == 0)
        tune_sb_printf(&b, "<text x=\"%d\" y=\"%d\" font-size=\"13\">no points</text>\n",
                       SVG_MARGIN,
                       SVG_TITLE_H + 20);
    for (size_t c = 0; !b.failed && c < nconfig; c++)
        svg_panel(&b, (double)(SVG_MARGIN + (c % cols) * (PANEL_W + SVG_MARGIN)),
                  (double)(SVG_TITLE_H + (c / cols) * (PANEL_H + SVG_MARGIN)), points, count,
                  firsts[c], all_nts, nall, &s);
    tune_sb_printf(&b, "</svg>\n");

    free(s.pts);
    free(s.vts);
    free(s.nts);
    free(firsts);
    free(all_nts);
    return tune_sb_write(&b, path);
}
