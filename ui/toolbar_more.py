"""The toolbar's "more" button, where its last buttons go on a narrow screen: room to show it,
and a name.

Fusion keeps 12 px for it: a sliver of it showed past the window's edge, its arrow drawn in no
colour, and at 150 % on a 1024-px screen Settings and Full screen were out of sight. Its room
is a style metric; the style that gives more is the toolbar's and the button's own, not the
application's, whose every metric would then pass through Python (the UI tests ran a tenth
slower).
"""

from __future__ import annotations

from typing import Final

from PySide6.QtWidgets import QProxyStyle, QStyle, QStyleFactory, QStyleOption, QToolBar, QWidget

from blitzcam.ui.text_size import text_scale

# its width, in pixels at the base text size
MORE_BUTTON_WIDTH: Final = 28
MORE_BUTTON_NAME: Final = "More buttons"


class _MoreButtonStyle(QProxyStyle):
    def __init__(self) -> None:
        super().__init__(QStyleFactory.create("Fusion"))

    def pixelMetric(
        self,
        metric: QStyle.PixelMetric,
        option: QStyleOption | None = None,
        widget: QWidget | None = None,
    ) -> int:
        if metric == QStyle.PixelMetric.PM_ToolBarExtensionExtent:
            return round(MORE_BUTTON_WIDTH * text_scale())
        return super().pixelMetric(metric, option, widget)


def fit_more_button(toolbar: QToolBar) -> None:
    """Give `toolbar`'s "more" button its room (MORE_BUTTON_WIDTH at the text's size) and a
    name."""
    from PySide6.QtWidgets import QToolButton

    more = toolbar.findChild(QToolButton, "qt_toolbar_ext_button")
    if more is None:  # (a Qt that builds it otherwise)
        return
    # the toolbar's layout keeps the room by its own style, the button sizes itself by its own
    # (a widget's style is not its children's)
    style = _MoreButtonStyle()
    style.setParent(toolbar)  # (a widget does not own the style it is given)
    toolbar.setStyle(style)
    more.setStyle(style)
    more.setToolTip(MORE_BUTTON_NAME)
    more.setAccessibleName(MORE_BUTTON_NAME)
